// Files under the data directory: every write is atomic (temp file, fsync, rename, fsync of the folder).
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname } from "node:path"

export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    const fd = openSync(tmp, "w", mode)
    try {
      writeSync(fd, typeof data === "string" ? Buffer.from(data) : data)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
  const dir = openSync(dirname(path), "r")
  try {
    fsyncSync(dir)
  } finally {
    closeSync(dir)
  }
}

export function writeJson(path: string, value: unknown, mode = 0o644): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, mode)
}

export async function readJson<T>(path: string, fallback: T): Promise<T> {
  let text: string
  try {
    text = await readFile(path, "utf8")
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return fallback
    throw err
  }
  return JSON.parse(text) as T
}
