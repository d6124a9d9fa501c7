// A stack's own files besides its compose file: `nginx.conf` bound read-only, an `extends:` or
// `include:`d compose file, an env file, secrets and configs files. They live in the stack's folder at
// their relative paths (compose resolves them there), are listed in state.json, and every version
// keeps a copy of them, so a rollback restores them.
//
// Paths are checked before anything touches the disk: relative, "/"-separated, each segment a name
// like a stack name (letters, digits, "_", "-", and "." after the first character: no ".", "..",
// hidden names, NUL, backslashes or empty segments), at most 32 deep and 1024 characters long. What
// the store keeps of its own (compose.yaml, .env, env.json, state.json, versions/) is not a stack
// file, nor is a name the atomic writer uses for its temporary files. A file may not replace
// something on disk that is not one of the stack's files (its data: `./data:/data`).
//
// The stack's folder is untrusted ground: its containers may rewrite it at any moment, swapping a
// folder for a symlink between two calls. Every operation here on the disk goes through
// lib/data/beneath.ts: no symlink is followed in any part of a path, and what is read, written or
// removed is what was opened, never the name looked up again; a symlink or a non-folder on the way is
// 400 `invalid_path` for a write, and leaves the file out of a read.
import { dirname } from "node:path"
import {
  kindBeneath,
  makeFoldersBeneath,
  readBeneath,
  Refused,
  removeBeneath,
  TEMP,
  writeBeneath,
} from "../data/beneath.ts"
import { conflict, invalid, tooLarge } from "../errors/errors.ts"

export const FILE_MAX_BYTES = 1024 * 1024
export const FILES_MAX = 64
export const FILES_MAX_TOTAL = 4 * 1024 * 1024
export const FILE_PATH_MAX = 1024
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/
const DEPTH_MAX = 32
const RESERVED = new Set(["compose.yaml", ".env", "env.json", "state.json"])

/** Relative path → text content. */
export type StackFiles = Record<string, string>

const badPath = (p: string, why: string) =>
  invalid(`invalid file path ${JSON.stringify(p.slice(0, 200))}: ${why}`, "invalid_path")

/** A stack file's path, checked (400 `invalid_path`, 400 `reserved_path`). */
export function filePath(p: unknown): string {
  if (typeof p !== "string" || !p)
    throw badPath(String(p ?? ""), "a relative path such as nginx.conf or conf/site.conf")
  if (p.length > FILE_PATH_MAX) throw badPath(p, `longer than ${FILE_PATH_MAX} characters`)
  if (p.startsWith("/")) throw badPath(p, "absolute; paths are relative to the stack's folder")
  const segments = p.split("/")
  if (segments.length > DEPTH_MAX) throw badPath(p, `more than ${DEPTH_MAX} folders deep`)
  for (const s of segments) {
    if (s === "..") throw badPath(p, "it leaves the stack's folder")
    if (!SEGMENT.test(s))
      throw badPath(
        p,
        "each part must start with a letter, digit or _ and hold only letters, digits, '.', '_' and '-' (no empty, hidden or '..' parts)",
      )
  }
  if (RESERVED.has(p) || segments[0] === "versions" || TEMP.test(p))
    throw invalid(
      `${p} is kept by the service itself (compose.yaml, .env, env.json, state.json, versions/): change it through its own route`,
      "reserved_path",
    )
  return p
}

/** A stack file's path from a URL's catch-all (left encoded by the router: `conf%2Fsite.conf` is `conf/site.conf`), checked. */
export function filePathParam(raw: string | undefined): string {
  let p: string
  try {
    p = decodeURIComponent(raw ?? "")
  } catch {
    throw badPath(raw ?? "", "not a well-formed URL path")
  }
  return filePath(p)
}

/** Checks a whole set: every path, sizes, count, and no path that is a folder of another (400/413). */
export function checkFiles(files: StackFiles): StackFiles {
  const paths = Object.keys(files)
  if (paths.length > FILES_MAX)
    throw invalid(`a stack holds at most ${FILES_MAX} files besides its compose file`, "too_many_files")
  let total = 0
  for (const p of paths) {
    filePath(p)
    if (typeof files[p] !== "string") throw invalid(`${p}: the content must be text`, "invalid_file")
    const size = Buffer.byteLength(files[p]!)
    if (size > FILE_MAX_BYTES)
      throw tooLarge(`${p} is ${size} bytes; a stack file holds at most ${FILE_MAX_BYTES}`, "file_too_large")
    total += size
  }
  if (total > FILES_MAX_TOTAL)
    throw tooLarge(`the stack's files hold ${total} bytes together; at most ${FILES_MAX_TOTAL}`, "files_too_large")
  const set = new Set(paths)
  for (const p of paths)
    for (let d = dirname(p); d !== "."; d = dirname(d))
      if (set.has(d)) throw badPath(p, `${d} is a file of the stack, not a folder`)
  return files
}

/**
 * Checks that the files can be written in the stack folder `dir` without touching anything else: no
 * symlink or non-folder on the way (400 `invalid_path`), and no file, folder or other thing already at
 * a new path that is not one of the stack's files `own` (409 `path_taken`: its data stays as it is).
 * The writes themselves refuse what a container swaps in after this check.
 */
export function checkOnDisk(dir: string, files: StackFiles, own: readonly string[]): void {
  const mine = new Set(own)
  for (const p of Object.keys(files)) {
    const kind = beneath(p, () => kindBeneath(dir, p))
    if (kind === "link") throw badPath(p, "it is a symlink in the stack's folder")
    if (kind !== "absent" && (kind !== "file" || !mine.has(p)))
      throw conflict(
        `${p} already exists in the stack's folder and is not one of its files (its data is left alone)`,
        "path_taken",
      )
  }
}

/** Whether two file sets hold the same paths and contents. */
export function sameFiles(a: StackFiles, b: StackFiles): boolean {
  const ka = Object.keys(a)
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
}

/** Which files were added, removed or changed from `before` to `after`, each sorted. */
export function fileChanges(
  before: StackFiles,
  after: StackFiles,
): { added: string[]; removed: string[]; changed: string[] } {
  const added = Object.keys(after)
    .filter((k) => !Object.hasOwn(before, k))
    .sort()
  const removed = Object.keys(before)
    .filter((k) => !Object.hasOwn(after, k))
    .sort()
  const changed = Object.keys(after)
    .filter((k) => Object.hasOwn(before, k) && before[k] !== after[k])
    .sort()
  return { added, removed, changed }
}

/** Runs a no-follow operation on the stack file `p`; a symlink or a non-folder met on the way is 400 `invalid_path`. */
function beneath<T>(p: string, op: () => T): T {
  try {
    return op()
  } catch (err) {
    if (err instanceof Refused) throw badPath(p, `${err.message} in the stack's folder`)
    throw err
  }
}

/**
 * The content of the stack file `p` in `dir`, or undefined when it is absent, a symlink, reached
 * through one, not a regular file, or larger than a stack file may be (none of these is a file the
 * service wrote).
 */
export function readStackFile(dir: string, p: string): string | undefined {
  try {
    return readBeneath(dir, p, FILE_MAX_BYTES)?.toString("utf8")
  } catch (err) {
    if (err instanceof Refused) return undefined
    throw err
  }
}

/**
 * Writes the stack file `p` in `dir` atomically, making its folders as real folders; a symlink or a
 * non-folder on the way, or a symlink or anything but a regular file at `p`, is 400 `invalid_path`.
 */
export function writeStackFile(dir: string, p: string, content: string): void {
  beneath(p, () => writeBeneath(dir, p, content))
}

/** Makes the folder `p` in `dir` and those on the way as real folders (a bind's source); a symlink or a non-folder there is 400 `invalid_path`. */
export function makeFolder(dir: string, p: string): void {
  beneath(p, () => makeFoldersBeneath(dir, p))
}

/** Removes a stack file and the folders it leaves empty (up to the stack's folder); never through a symlink (then nothing is removed). */
export function removeFile(dir: string, p: string): void {
  try {
    removeBeneath(dir, p, true)
  } catch (err) {
    if (!(err instanceof Refused)) throw err
  }
}

/** The sorted paths. */
export const filePaths = (files: StackFiles): string[] => Object.keys(files).sort()
