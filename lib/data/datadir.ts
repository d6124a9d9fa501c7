// Files under the data directory: every write is atomic (temp file, fsync, rename, fsync of the folder),
// a folder made, a file or folder removed and a rename synced in the folders they change, so that
// what was answered as done lasts through a power loss. A file that holds secrets is written sealed (lib/data/sealed.ts, mode 0600); readJson opens a sealed
// file and reads a plain one as it is.
import {
  closeSync,
  constants as C,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
} from "node:fs"
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { at, openFolder, replaceIn, TEMP } from "./beneath.ts"
import { durableStep } from "./crash.ts"
import { currentKeyId, seal, sealedWith, unseal } from "./sealed.ts"

export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  makeDirs(dirname(path))
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
  durableStep()
}

/** fsync of a folder: what was made, renamed or removed in it lasts through a power loss. */
export function syncDir(path: string): void {
  const fd = openSync(path, C.O_RDONLY | C.O_DIRECTORY)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Makes `path` and the folders above it that are missing, each one's making synced in its parent. */
export function makeDirs(path: string, mode = 0o755): void {
  const missing: string[] = []
  for (let p = path; !existsSync(p); p = dirname(p)) missing.unshift(p)
  for (const p of missing) {
    try {
      mkdirSync(p, { mode })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err
    }
    syncDir(dirname(p))
    durableStep()
  }
}

/** Removes `path` (a folder with what it holds), its removal synced in its parent. */
export function removeDurably(path: string): void {
  if (!lstatSync(path, { throwIfNoEntry: false })) return
  rmSync(path, { recursive: true, force: true })
  syncDir(dirname(path))
  durableStep()
}

/** Renames `from` to `to`, synced in both folders. */
export function renameDurably(from: string, to: string): void {
  renameSync(from, to)
  syncDir(dirname(to))
  if (dirname(from) !== dirname(to)) syncDir(dirname(from))
  durableStep()
}

export function writeJson(path: string, value: unknown, mode = 0o644): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, mode)
}

/** `text` sealed with the service's secret key, written atomically with mode 0600. */
export function writeSealed(path: string, text: string): void {
  writeFileAtomic(path, seal(text), 0o600)
}

/** `value` as JSON, sealed (see writeSealed). */
export function writeSealedJson(path: string, value: unknown): void {
  writeSealed(path, `${JSON.stringify(value, null, 2)}\n`)
}

/** A JSON file, opened when sealed; `fallback` when there is none. */
export async function readJson<T>(path: string, fallback: T): Promise<T> {
  let text: string
  try {
    text = await readFile(path, "utf8")
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return fallback
    throw err
  }
  return JSON.parse(unseal(text, path)) as T
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

/**
 * Every file of the data directory that `patterns` name (relative paths, `*` one name of a folder or
 * file, never a link), sealed with the current key: a plain one (written by an earlier release) and
 * one sealed with a previous key (a rotation) are written again; those `gone` names (plain copies an
 * earlier release kept) are removed. Answers how many files were sealed and removed.
 */
export function resealAll(
  dataDir: string,
  patterns: readonly string[],
  gone: readonly string[] = [],
): { sealed: number; removed: number } {
  let sealed = 0
  let removed = 0
  for (const path of matching(dataDir, patterns)) {
    const text = readFileSync(path, "utf8")
    if (sealedWith(text) === currentKeyId()) continue
    writeSealed(path, unseal(text, path))
    sealed++
  }
  for (const path of matching(dataDir, gone)) {
    removeDurably(path)
    removed++
  }
  return { sealed, removed }
}

/** The regular files under `dir` that the patterns name (see resealAll). */
function matching(dir: string, patterns: readonly string[]): string[] {
  const found: string[] = []
  const walk = (at: string, parts: string[]) => {
    const [part, ...rest] = parts
    const names = part === "*" ? readdirSafe(at) : [part!]
    for (const name of names) {
      const path = join(at, name)
      const st = lstatSync(path, { throwIfNoEntry: false })
      if (!st) continue
      if (rest.length === 0 && st.isFile() && !TEMP.test(name)) found.push(path)
      else if (rest.length && st.isDirectory()) walk(path, rest)
    }
  }
  for (const p of patterns) walk(dir, p.split("/"))
  return found
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
