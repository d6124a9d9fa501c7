import { afterAll, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
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
  const stale = [
    join(dir, "stacks", "web", `env.json.tmp-${dead.pid}-abc123`),
    join(dir, "stacks", "web", "versions", `3.json.tmp-${dead.pid}-x`),
  ]
  const live = join(dir, "stacks", "web", `state.json.tmp-${process.ppid}-def`)
  const own = join(dir, `cluster.json.tmp-${process.pid}-ghi`)
  const kept = join(dir, "stacks", "web", "notes.tmp-1")
  for (const f of [...stale, live, own, kept]) writeFileSync(f, "partial")
  expect(removeStaleTemps(dir)).toBe(2)
  expect(stale.map(existsSync)).toEqual([false, false])
  expect([live, own, kept].map(existsSync)).toEqual([true, true, true])
  expect(removeStaleTemps(join(dir, "missing"))).toBe(0)
})

test("the sweep follows no link: a loop and links to a host folder anywhere are passed by, a matching file there stays", async () => {
  const dead = Bun.spawn(["true"])
  await dead.exited
  const data = join(dir, "linked")
  const host = join(dir, "host")
  mkdirSync(join(data, "stacks", "web", "data", "deep"), { recursive: true })
  mkdirSync(host)
  const hostTemp = join(host, `passwd.tmp-${dead.pid}-abc`)
  writeFileSync(hostTemp, "host")
  symlinkSync("..", join(data, "stacks", "web", "data", "loop"))
  symlinkSync(host, join(data, "stacks", "web", "data", "deep", "host"))
  symlinkSync(hostTemp, join(data, "stacks", "web", `linked.tmp-${dead.pid}-def`)) // a link named like a temp file
  execFileSync("mkfifo", [join(data, "stacks", "web", `fifo.tmp-${dead.pid}-ghi`)])
  const stale = join(data, "stacks", "web", "data", "deep", `x.tmp-${dead.pid}-jkl`)
  writeFileSync(stale, "partial")
  expect(removeStaleTemps(data)).toBe(1)
  expect(existsSync(stale)).toBe(false)
  expect(readFileSync(hostTemp, "utf8")).toBe("host")
  expect(lstatSync(join(data, "stacks", "web", `linked.tmp-${dead.pid}-def`)).isSymbolicLink()).toBe(true)
  expect(lstatSync(join(data, "stacks", "web", `fifo.tmp-${dead.pid}-ghi`)).isFIFO()).toBe(true)
})

test("the sweep never throws: a data directory that is a file, or a link loop at its top", () => {
  writeFileSync(join(dir, "plain-file"), "x")
  expect(removeStaleTemps(join(dir, "plain-file"))).toBe(0)
  symlinkSync("self", join(dir, "self"))
  expect(removeStaleTemps(join(dir, "self"))).toBe(0)
})
