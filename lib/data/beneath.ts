// File operations on a relative path under a root folder whose contents others may rewrite at any
// moment (a container binding the folder): none follows a symlink in any part of the path, and each
// acts on what it opened, never on the name again. Every folder on the way is opened with
// O_NOFOLLOW|O_DIRECTORY inside the one before it, through /proc/self/fd/<fd>/<name> (the magic link
// is the opened folder itself, wherever its name leads by now), and the last part is read, replaced
// or removed inside the last folder opened. A tree rewritten meanwhile can make an operation fail
// (`Refused`), never lead it outside the root. The root's own path is the caller's and is trusted.
import {
  closeSync,
  constants as C,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from "node:fs"
import { durableStep } from "./crash.ts"

/** open(2)'s O_PATH on Linux (x86, ARM, RISC-V): a handle to the inode that reads nothing and opens no device. */
const O_PATH = 0o10000000

/** The atomic writer's temporary files (`<name>.tmp-<pid>-<random>`): removed at start when their process is gone. */
export const TEMP = /\.tmp-(\d+)-[a-z0-9]*$/

/** A link or something other than a folder on the way, or at the path something the operation does not take. */
export class Refused extends Error {
  constructor(message: string) {
    super(message)
    this.name = "Refused"
  }
}

/** The name `name` inside the folder opened as `fd`. */
export const at = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`

/** Opens the folder `name` inside the folder `parent` without following a link (ENOTDIR for a link or a file). */
export const openFolder = (parent: number, name: string): number =>
  openSync(at(parent, name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW)

/**
 * Replaces `name` in the folder opened as `dir` with `data` atomically: a temp file of its own
 * (O_EXCL, never a link), fsync, rename over the name (a link there is replaced, not followed),
 * fsync of the folder.
 */
export function replaceIn(dir: number, name: string, data: string | Uint8Array, mode = 0o644): void {
  const tmp = `${name}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    const fd = openSync(at(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode)
    try {
      writeFileSync(fd, data)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(at(dir, tmp), at(dir, name))
  } catch (err) {
    try {
      unlinkSync(at(dir, tmp))
    } catch {}
    throw err
  }
  fsyncSync(dir)
  durableStep()
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code

/** The parts of a relative path; "", ".", ".." and absolute paths are refused. */
function parts(rel: string): string[] {
  const segments = rel.split("/")
  for (const s of segments)
    if (!s || s === "." || s === ".." || s.includes("\0"))
      throw new Refused(`${JSON.stringify(rel)} is not a relative path of plain names`)
  return segments
}

/** Why `name` in `parent` could not be opened as a folder (for the message only: it may have changed since). */
function notFolder(parent: number, name: string, shown: string): Refused {
  const link = lstatSync(at(parent, name), { throwIfNoEntry: false })?.isSymbolicLink()
  return new Refused(`${shown} is ${link ? "a symlink" : "not a folder"}`)
}

const refusal = (err: unknown) => errno(err) === "ENOTDIR" || errno(err) === "ELOOP"

/** What a folder that is not there means: make it (`create`), or answer `absent`. */
type Missing<T> = { create: true } | { absent: T }

/**
 * Runs `fn` with the root and the folders `folders` below it opened, in order, closing them after. A
 * missing folder is made, or the answer is `absent`, as `missing` says.
 */
function inFolders<T>(root: string, folders: string[], missing: Missing<T>, fn: (fds: number[]) => T): T {
  const create = "create" in missing
  const absent = "absent" in missing ? missing.absent : (undefined as T)
  const fds: number[] = []
  try {
    try {
      if (create) mkdirSync(root, { recursive: true })
      fds.push(openSync(root, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW))
    } catch (err) {
      if (errno(err) === "ENOENT" && !create) return absent
      throw refusal(err) ? new Refused("the root is a symlink or not a folder") : err
    }
    for (const [i, name] of folders.entries()) {
      const parent = fds[i]!
      const shown = folders.slice(0, i + 1).join("/")
      try {
        fds.push(openFolder(parent, name))
        continue
      } catch (err) {
        if (refusal(err)) throw notFolder(parent, name, shown)
        if (errno(err) !== "ENOENT") throw err
        if (!create) return absent
      }
      try {
        mkdirSync(at(parent, name))
      } catch (err) {
        if (errno(err) === "ENOENT") throw new Refused(`the folder holding ${shown} was removed meanwhile`)
        if (errno(err) !== "EEXIST") throw err
      }
      // Opened again without following: a link raced in after the mkdir is refused here.
      try {
        fds.push(openFolder(parent, name))
      } catch (err) {
        throw refusal(err) || errno(err) === "ENOENT" ? notFolder(parent, name, shown) : err
      }
    }
    return fn(fds)
  } finally {
    for (const fd of fds) closeSync(fd)
  }
}

/** Runs `fn` in the folder holding `rel`'s last part, opened (made with `create`), with that part's name. */
function inParent<T>(
  root: string,
  rel: string,
  missing: Missing<T>,
  fn: (dir: number, name: string, fds: number[], folders: string[]) => T,
): T {
  const segments = parts(rel)
  const folders = segments.slice(0, -1)
  return inFolders(root, folders, missing, (fds) => fn(fds.at(-1)!, segments.at(-1)!, fds, folders))
}

export type Kind = "absent" | "file" | "folder" | "link" | "other"

/** What lies at `rel` under `root` (absent when a folder on the way is missing); a link or a non-folder on the way is `Refused`. */
export function kindBeneath(root: string, rel: string): Kind {
  return inParent<Kind>(root, rel, { absent: "absent" }, (dir, name) => {
    const st = lstatSync(at(dir, name), { throwIfNoEntry: false })
    if (!st) return "absent"
    return st.isFile() ? "file" : st.isDirectory() ? "folder" : st.isSymbolicLink() ? "link" : "other"
  })
}

/**
 * The content of the regular file at `rel` under `root`, or undefined when it is absent. A link
 * anywhere on the way or at the path, something other than a regular file (a FIFO, a device, a
 * folder: never opened for reading), or more than `maxBytes` is `Refused`.
 */
export function readBeneath(root: string, rel: string, maxBytes: number): Buffer | undefined {
  return inParent<Buffer | undefined>(root, rel, { absent: undefined }, (dir, name) => {
    let handle: number
    try {
      handle = openSync(at(dir, name), O_PATH | C.O_NOFOLLOW)
    } catch (err) {
      if (errno(err) === "ENOENT") return undefined
      throw err
    }
    try {
      const st = fstatSync(handle)
      if (!st.isFile()) throw new Refused(`${rel} is ${st.isSymbolicLink() ? "a symlink" : "not a regular file"}`)
      // The inode just checked, opened for reading through its own handle.
      const fd = openSync(`/proc/self/fd/${handle}`, C.O_RDONLY | C.O_NOCTTY)
      try {
        const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1)
        let n = 0
        for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null)
        // A full buffer is one byte more than the file held when checked, or than it may hold.
        if (n === buf.length)
          throw new Refused(`${rel} ${n > maxBytes ? `holds more than ${maxBytes} bytes` : "grew while it was read"}`)
        return buf.subarray(0, n)
      } finally {
        closeSync(fd)
      }
    } finally {
      closeSync(handle)
    }
  })
}

/**
 * Writes `data` at `rel` under `root` atomically, making the missing folders as real folders. A link
 * or a non-folder on the way, or a link or anything but a regular file at the path, is `Refused`.
 */
export function writeBeneath(root: string, rel: string, data: string | Uint8Array, mode = 0o644): void {
  inParent(root, rel, { create: true }, (dir, name) => {
    const st = lstatSync(at(dir, name), { throwIfNoEntry: false })
    if (st && !st.isFile()) throw new Refused(`${rel} is ${st.isSymbolicLink() ? "a symlink" : "not a regular file"}`)
    try {
      replaceIn(dir, name, data, mode)
    } catch (err) {
      // Its folder removed, or a folder put at its name, since it was opened.
      if (["ENOENT", "EISDIR", "ENOTEMPTY"].includes(errno(err)!))
        throw new Refused(`${rel} changed while it was written`)
      throw err
    }
  })
}

/** Makes the folder `rel` under `root` and those on the way as real folders; a link or a non-folder on the way or at the path is `Refused`. */
export function makeFoldersBeneath(root: string, rel: string): void {
  inFolders(root, parts(rel), { create: true }, () => {})
}

/**
 * Removes the file at `rel` under `root` (a link there is removed itself, never what it leads to),
 * then with `prune` the folders it leaves empty, up to the root. Whether something was removed; a
 * link or a non-folder on the way is `Refused`, a folder at the path too.
 */
export function removeBeneath(root: string, rel: string, prune = false): boolean {
  return inParent(root, rel, { absent: false }, (dir, name, fds, folders) => {
    try {
      unlinkSync(at(dir, name))
    } catch (err) {
      if (errno(err) === "ENOENT") return false
      if (errno(err) === "EISDIR") throw new Refused(`${rel} is a folder`)
      throw err
    }
    for (let i = fds.length - 1; prune && i > 0; i--) {
      try {
        rmdirSync(at(fds[i - 1]!, folders[i - 1]!))
      } catch {
        break // not empty, or no longer a folder
      }
    }
    return true
  })
}
