import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AuditLog, type AuditInput } from "#lib/auth/audit.ts"

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const entry = (i: number, o: Partial<AuditInput> = {}): AuditInput => ({
  user: `u${i % 3}`,
  source: "local",
  role: "admin",
  method: "POST",
  route: "/api/stacks/:name/restart",
  target: { name: `s${i}` },
  status: i % 5 ? 200 : 403,
  peer: "127.0.0.1",
  token: null,
  ...o,
})

test("past its size the file rotates; `files` files are kept in all, the oldest dropped, each 0600", () => {
  dir = mkdtempSync(join(tmpdir(), "hm-audit-"))
  let clock = 1_700_000_000_000
  const log = new AuditLog(dir, { maxBytes: 2000, files: 3 }, () => clock++)
  for (let i = 0; i < 200; i++) log.write(entry(i))
  expect(existsSync(join(dir, "audit.log.2"))).toBe(true)
  expect(existsSync(join(dir, "audit.log.3"))).toBe(false)
  for (const f of ["audit.log", "audit.log.1", "audit.log.2"]) {
    expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(2000)
    expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
  }
  const kept = ["audit.log.2", "audit.log.1", "audit.log"].flatMap((f) =>
    readFileSync(join(dir, f), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).target.name),
  )
  expect(kept.at(-1)).toBe("s199")
  expect(kept).not.toContain("s0")
  // What is kept is the newest run of entries, in order.
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `s${200 - kept.length + i}`))
})

test("a query is newest first, filtered, a page at a time through the cursor, across rotated files", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-audit-"))
  let clock = 1_700_000_000_000
  const log = new AuditLog(dir, { maxBytes: 3000, files: 10 }, () => (clock += 1000))
  for (let i = 0; i < 60; i++) log.write(entry(i))
  const all = await log.query({ limit: 1000 })
  expect(all.entries).toHaveLength(60)
  expect(all.next).toBeNull()
  const denied = await log.query({ status_min: 400, status_max: 499, limit: 1000 })
  expect(denied.entries.map((e) => e.target.name)).toEqual([
    "s55",
    "s50",
    "s45",
    "s40",
    "s35",
    "s30",
    "s25",
    "s20",
    "s15",
    "s10",
    "s5",
    "s0",
  ])
  expect(denied.entries.every((e) => e.result === "denied")).toBe(true)
  const pages: string[] = []
  let cursor: string | undefined
  do {
    const page = await log.query({ user: "u1", limit: 7, cursor })
    pages.push(...page.entries.map((e) => e.target.name!))
    cursor = page.next ?? undefined
  } while (cursor)
  expect(pages).toEqual(all.entries.filter((e) => e.user === "u1").map((e) => e.target.name!))
  const since = Date.parse(all.entries[9]!.time)
  expect((await log.query({ since, limit: 1000 })).entries).toHaveLength(10)
  expect((await log.query({ until: since, limit: 1000 })).entries).toHaveLength(51)
  expect((await log.query({ route: "/api/stacks", limit: 1000 })).entries).toHaveLength(60)
  expect((await log.query({ route: "/api/stack", limit: 1000 })).entries).toHaveLength(0)
})

test("a query over large files is read off the event loop: timers keep firing while it runs", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-audit-"))
  const log = new AuditLog(dir, { maxBytes: 4 << 20, files: 3 }, () => 1_700_000_000_000)
  for (let i = 0; i < 40_000; i++) log.write(entry(i))
  let ticks = 0
  const ticking = setInterval(() => ticks++, 1)
  const page = await log.query({ user: "nobody", limit: 10 })
  clearInterval(ticking)
  expect(page.entries).toEqual([])
  // Each of the 40,000 lines was parsed on the worker while the loop went on turning.
  expect(ticks).toBeGreaterThan(1)
})
