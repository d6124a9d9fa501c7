// Files under the data directory: every write is atomic (temp file, fsync, rename, fsync of the folder).
import { closeSync, constants as C, mkdirSync, openSync, readdirSync, unlinkSync } from "node:fs"
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises"
import { basename, dirname } from "node:path"
import { at, openFolder, replaceIn, TEMP } from "./beneath.ts"

export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true })
  const dir = openSync(dirname(path), C.O_RDONLY | C.O_DIRECTORY)
  try {
    replaceIn(dir, basename(path), data, mode)
  } finally {
    closeSync(dir)
  }
}

/**
 * `writeFileAtomic` off the event loop (the runtime's file threads do the writing and the fsyncs):
 * for a store written often while requests are served. The temp file is of the same kind, swept at
 * start when its process is gone.
 */
export async function writeFileAtomicAsync(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    const file = await open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode)
    try {
      await file.writeFile(data)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(tmp, path)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
  const dir = await open(dirname(path), C.O_RDONLY | C.O_DIRECTORY)
  try {
    await dir.sync()
  } finally {
    await dir.close()
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

/** Whether the process `pid` still runs (one of another user's counts). */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Deeper than any folder the service writes into (a stack file lies at most 32 folders below its stack's). */
const SWEEP_DEPTH = 40

/**
 * Removes the temp files of writes that a killed process never finished (the file they were to
 * replace is whole, old or new); temp files of a live process are left alone. Returns how many went.
 * The walk never follows a link (a stack's data may hold `loop -> ..` or a link to a host folder),
 * removes only regular files, and skips what it cannot read: it never throws.
 */
export function removeStaleTemps(dataDir: string): number {
  let root: number
  try {
    root = openSync(dataDir, C.O_RDONLY | C.O_DIRECTORY)
  } catch {
    return 0
  }
  return sweep(root, SWEEP_DEPTH)
}

/** Sweeps the folder opened as `dir` and those below it, then closes it. */
function sweep(dir: number, depth: number): number {
  let removed = 0
  try {
    for (const e of readdirSync(at(dir, "."), { withFileTypes: true })) {
      if (e.isDirectory() && depth > 0) {
        let sub: number
        try {
          sub = openFolder(dir, e.name)
        } catch {
          continue
        }
        removed += sweep(sub, depth - 1)
        continue
      }
      const pid = Number(TEMP.exec(e.name)?.[1])
      if (!e.isFile() || !pid || pid === process.pid || alive(pid)) continue
      try {
        // A link swapped in since is removed itself, never what it leads to.
        unlinkSync(at(dir, e.name))
        removed++
      } catch {}
    }
  } catch {
    // An unreadable folder is left as it is.
  } finally {
    closeSync(dir)
  }
  return removed
}
