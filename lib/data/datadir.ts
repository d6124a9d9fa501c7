// Files under the data directory: every write is atomic (temp file, fsync, rename, fsync of the folder).
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join } from "node:path"

const TEMP = /\.tmp-(\d+)-[a-z0-9]*$/

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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Removes the temp files of writes that a killed process never finished (the file they were to
 * replace is whole, old or new); temp files of a live process are left alone. Returns how many went.
 */
export function removeStaleTemps(dataDir: string): number {
  if (!existsSync(dataDir)) return 0
  let removed = 0
  for (const e of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
    const pid = Number(TEMP.exec(e.name)?.[1])
    if (!e.isFile() || !pid || pid === process.pid || alive(pid)) continue
    rmSync(join(e.parentPath, e.name), { force: true })
    removed++
  }
  return removed
}
