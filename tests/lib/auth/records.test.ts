import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RecordFolder, Uses } from "#lib/auth/records.ts"

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))
const ID = /^[a-z]+$/

test("records are files of their own; another instance's adds and removals are seen at the next read", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-records-"))
  const folder = new RecordFolder<{ n: number }>(join(dir, "r"), ID)
  const other = new RecordFolder<{ n: number }>(join(dir, "r"), ID)
  await folder.add("one", { n: 1 })
  await other.add("two", { n: 2 })
  expect(folder.entries().sort()).toEqual([
    ["one", { n: 1 }],
    ["two", { n: 2 }],
  ])
  expect(other.remove("one")).toBe(true)
  expect(folder.get("one")).toBeUndefined()
  expect(folder.remove("one")).toBe(false)
  // A temp file of a write under way, or a name of another shape, is no record.
  writeFileSync(join(dir, "r", "three.json.tmp-1-x"), "{")
  writeFileSync(join(dir, "r", "Bad.json"), "{}")
  expect(folder.all()).toEqual([{ n: 2 }])
  expect(folder.remove("../r/two")).toBe(false)
})

test("the last-use times are one small file, written later, without the records that went", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-records-"))
  const alive = new Set(["a", "b"])
  const file = join(dir, "used.json")
  const uses = new Uses(file, (id) => alive.has(id), 60_000)
  uses.set("a", 1)
  uses.set("b", 2)
  expect(existsSync(file)).toBe(false)
  alive.delete("b")
  await uses.flush()
  expect(await Bun.file(file).json()).toEqual({ a: 1 })
  expect(new Uses(file, () => true).get("a")).toBe(1)
  expect(readdirSync(dir)).toEqual(["used.json"])
})
