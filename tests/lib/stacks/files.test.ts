import { afterAll, beforeEach, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  checkOnDisk,
  FILE_MAX_BYTES,
  filePath,
  makeFolder,
  readStackFile,
  removeFile,
  writeStackFile,
} from "#lib/stacks/files.ts"
import { DomainError } from "#lib/errors/errors.ts"

const base = mkdtempSync(join(tmpdir(), "hm-files-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const dir = join(base, "stack")
const host = join(base, "host")

beforeEach(() => {
  for (const d of [dir, host]) rmSync(d, { recursive: true, force: true })
  mkdirSync(join(dir, "conf"), { recursive: true })
  writeFileSync(join(dir, "conf", "app.conf"), "mine\n")
  mkdirSync(host)
  writeFileSync(join(host, "app.conf"), "host\n")
})

const code = (fn: () => unknown) => {
  try {
    fn()
  } catch (err) {
    return err instanceof DomainError ? `${err.kind} ${err.code}` : String(err)
  }
}

test("a path may be 32 folders deep and 1024 characters long, not more", () => {
  const deep = `${"d/".repeat(31)}f`
  expect(filePath(deep)).toBe(deep)
  expect(code(() => filePath(`d/${deep}`))).toBe("invalid invalid_path")
  const long = `${Array(10).fill("x".repeat(100)).join("/")}/${"y".repeat(14)}`
  expect(long.length).toBe(1024)
  expect(filePath(long)).toBe(long)
  expect(code(() => filePath(`${long}z`))).toBe("invalid invalid_path")
})

test("a stack file is written with its folders, read back and removed with the folders it leaves empty", () => {
  writeStackFile(dir, "a/b/c.conf", "text\n")
  expect(readStackFile(dir, "a/b/c.conf")).toBe("text\n")
  removeFile(dir, "a/b/c.conf")
  expect(existsSync(join(dir, "a"))).toBe(false)
  makeFolder(dir, "data/db")
  expect(lstatSync(join(dir, "data", "db")).isDirectory()).toBe(true)
})

test("a symlink in the stack's folder: a read leaves the file out, a write or a folder is 400, a remove leaves it", () => {
  rmSync(join(dir, "conf"), { recursive: true })
  symlinkSync(host, join(dir, "conf"))
  expect(readStackFile(dir, "conf/app.conf")).toBeUndefined()
  expect(code(() => writeStackFile(dir, "conf/app.conf", "out"))).toBe("invalid invalid_path")
  expect(code(() => writeStackFile(dir, "conf/new/app.conf", "out"))).toBe("invalid invalid_path")
  expect(code(() => makeFolder(dir, "conf/new"))).toBe("invalid invalid_path")
  expect(code(() => checkOnDisk(dir, { "conf/app.conf": "x" }, ["conf/app.conf"]))).toBe("invalid invalid_path")
  removeFile(dir, "conf/app.conf")
  expect(readFileSync(join(host, "app.conf"), "utf8")).toBe("host\n")
  expect(existsSync(join(host, "new"))).toBe(false)
})

test("at the file itself: a link, a FIFO or an oversize file is no stack file", () => {
  symlinkSync(join(host, "app.conf"), join(dir, "link.conf"))
  execFileSync("mkfifo", [join(dir, "fifo.conf")])
  writeFileSync(join(dir, "big.conf"), "x".repeat(FILE_MAX_BYTES + 1))
  for (const p of ["link.conf", "fifo.conf", "big.conf", "missing.conf"]) expect(readStackFile(dir, p)).toBeUndefined()
  expect(code(() => writeStackFile(dir, "link.conf", "out"))).toBe("invalid invalid_path")
  expect(code(() => checkOnDisk(dir, { "link.conf": "x" }, ["link.conf"]))).toBe("invalid invalid_path")
  expect(code(() => checkOnDisk(dir, { "fifo.conf": "x" }, ["fifo.conf"]))).toBe("conflict path_taken")
  expect(code(() => checkOnDisk(dir, { "conf/app.conf": "x" }, []))).toBe("conflict path_taken")
  expect(code(() => checkOnDisk(dir, { "conf/app.conf": "x", "new/x.conf": "y" }, ["conf/app.conf"]))).toBeUndefined()
  expect(readFileSync(join(host, "app.conf"), "utf8")).toBe("host\n")
})
