import { afterAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { removeStaleTemps, writeFileAtomic } from "#lib/data/datadir.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-datadir-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("an atomic write leaves the file and no temp file", () => {
  writeFileAtomic(join(dir, "a", "x.json"), "{}")
  expect(readdirSync(join(dir, "a"))).toEqual(["x.json"])
})

test("temp files of dead processes go, those of live ones and other files stay", async () => {
  const dead = Bun.spawn(["true"])
  await dead.exited
  mkdirSync(join(dir, "stacks", "web", "versions"), { recursive: true })
  const stale = [join(dir, "stacks", "web", `env.json.tmp-${dead.pid}-abc123`), join(dir, "stacks", "web", "versions", `3.json.tmp-${dead.pid}-x`)]
  const live = join(dir, "stacks", "web", `state.json.tmp-${process.ppid}-def`)
  const own = join(dir, `cluster.json.tmp-${process.pid}-ghi`)
  const kept = join(dir, "stacks", "web", "notes.tmp-1")
  for (const f of [...stale, live, own, kept]) writeFileSync(f, "partial")
  expect(removeStaleTemps(dir)).toBe(2)
  expect(stale.map(existsSync)).toEqual([false, false])
  expect([live, own, kept].map(existsSync)).toEqual([true, true, true])
  expect(removeStaleTemps(join(dir, "missing"))).toBe(0)
})
