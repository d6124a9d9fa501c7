// The intent journal: an intent is sealed on disk from its begin to its end; those another process
// left are found at start (oldest first), this process's own are not.
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beginIntent, endIntent, INTENTS_DIR, leftIntents } from "#lib/data/intents.ts"
import { writeSealedJson } from "#lib/data/datadir.ts"
import { isSealed } from "#lib/data/sealed.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-intents-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("an intent is kept sealed until it ends; only another process's are left to recover", async () => {
  const mine = beginIntent(dir, "release", "web", { env: [{ key: "K", value: "s3cret", secret: true }] })
  const [file] = readdirSync(join(dir, INTENTS_DIR))
  const text = readFileSync(join(dir, INTENTS_DIR, file!), "utf8")
  expect(isSealed(text)).toBe(true)
  expect(text).not.toContain("s3cret")
  expect(await leftIntents(dir)).toEqual([])

  // Two intents of a process gone, written out of order: found oldest first, opened.
  const gone = (id: string, stack: string) =>
    writeSealedJson(join(dir, INTENTS_DIR, `${id}.json`), {
      id,
      op: "backup.stop",
      stack,
      pid: 2 ** 22 + 1,
      started: "2026-01-01T00:00:00.000Z",
      data: { containers: ["c1"] },
    })
  gone("200-1-b", "later")
  gone("100-1-a", "first")
  expect((await leftIntents(dir)).map((i) => [i.stack, i.data])).toEqual([
    ["first", { containers: ["c1"] }],
    ["later", { containers: ["c1"] }],
  ])

  endIntent(dir, mine)
  endIntent(dir, { id: "100-1-a" })
  expect(readdirSync(join(dir, INTENTS_DIR))).toEqual(["200-1-b.json"])
})

test("no intents folder: nothing left", async () => {
  expect(await leftIntents(join(dir, "none"))).toEqual([])
})
