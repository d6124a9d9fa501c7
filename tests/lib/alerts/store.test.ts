// What the alerts keep, written off the event loop: in the order asked, whole, and read back after
// the writes asked before the read.
import { afterEach, beforeEach, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AlertFiles, HISTORY_KEEP, type HistoryEntry } from "#lib/alerts/store.ts"

let dir: string
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "hm-alert-files-"))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const entry = (title: string): Omit<HistoryEntry, "seq"> => ({
  time: "2026-01-01T00:00:00.000Z",
  rule: "rule_1",
  rule_name: "crashes",
  channel: "ch_1",
  channel_name: "hook",
  state: "firing",
  result: "sent",
  attempts: 1,
  grouped: 1,
  title,
  stack: null,
  error: null,
})

test("writes asked one after another land in that order: the file holds the last, whole, mode 0600", async () => {
  const files = new AlertFiles(dir)
  for (let i = 0; i < 20; i++) void files.write("outbox.json", [{ id: `b${i}`, alerts: Array(i).fill("x") }])
  await files.settled()
  expect(await files.read<unknown[]>("outbox.json", [])).toEqual([{ id: "b19", alerts: Array(19).fill("x") }])
  expect(statSync(join(dir, "alerts", "outbox.json")).mode & 0o777).toBe(0o600)
})

test("the history is numbered at once, read back after the appends asked before the read, and trimmed to HISTORY_KEEP", async () => {
  const files = new AlertFiles(dir)
  const first = files.append([entry("a"), entry("b")])
  expect(first.map((e) => e.seq)).toEqual([1, 2])
  const page = await files.history(10, undefined, () => true)
  expect(page.entries.map((e) => e.title)).toEqual(["b", "a"])
  // Past 1.2 times what is kept, the oldest go; the numbers go on.
  const burst = Math.ceil(HISTORY_KEEP * 1.2)
  for (let i = 0; i < burst; i++) files.append([entry(`c${i}`)])
  const newest = await files.history(1, undefined, () => true)
  expect(newest.entries[0]).toMatchObject({ seq: burst + 2, title: `c${burst - 1}` })
  await files.settled()
  const lines = readFileSync(join(dir, "alerts", "history.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
  expect(lines.length).toBeLessThanOrEqual(HISTORY_KEEP * 1.2)
  expect(lines.length).toBeGreaterThanOrEqual(HISTORY_KEEP)
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ seq: burst + 2 })
  // A second reader of the same folder goes on from the last number kept.
  expect(new AlertFiles(dir).append([entry("d")])[0]!.seq).toBe(burst + 3)
})
