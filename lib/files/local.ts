// A volume's own folder on this host (the engine proved local, lib/volumes/folder.ts), browsed and
// changed as hostile ground: its containers may rewrite it at any moment, swapping a file or a
// folder for a link to anywhere between two system calls.
//
// A single file is read, written, made, renamed or removed here, in this process, through no-follow
// opens: every folder on the way is opened with O_NOFOLLOW|O_DIRECTORY inside the one before it
// (through /proc/self/fd/<fd>/<name>), the last part is opened O_PATH|O_NOFOLLOW and checked on the
// handle it gave, and each call acts on what was opened, never on a name looked up again. What walks
// a tree (a listing, a folder's tar, an upload's unpacking, a folder's removal) is GNU find, tar or
// rm, run in a private mount namespace where the folder is bound onto itself `nosymfollow`
// (read-only unless it writes): there the kernel follows no link on the volume in any path, whatever
// the tool does. Names reach those tools as octal escapes decoded by the shell (paths.ts), so any
// bytes pass.
import {
  closeSync,
  constants as C,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  read,
  readdirSync,
  renameSync,
  type Stats,
  unlinkSync,
  write as writeFd,
} from "node:fs"
import { promisify } from "node:util"
import { randomBytes } from "node:crypto"
import { spawnBounded } from "../engine/spawn.ts"
import { confined } from "../volumes/folder.ts"
import { tarGuard } from "../volumes/tar-scan.ts"
import { conflict, invalid, notFound, timedOut, upstream } from "../errors/errors.ts"
import { changed, type Files, type Kind, notRoot, paged, type RawEntry, versionOfStream } from "./files.ts"
import { type FilePath, octal, shownPath } from "./paths.ts"
import { checkUpload } from "./upload.ts"

const readAsync = promisify(read)
const writeAsync = promisify(writeFd)

/** open(2)'s O_PATH on Linux: a handle to the inode that reads nothing and opens no device. */
const O_PATH = 0o10000000
const CHUNK = 256 * 1024
/** How long a tool may walk a tree (a listing, a removal); a tar stream has the transfer's own. */
const WALK_SECONDS = 300
const STREAM_SECONDS = 24 * 3600

const errno = (err: unknown) => (err as NodeJS.ErrnoException)?.code
const at = (fd: number, name: Buffer) => Buffer.concat([Buffer.from(`/proc/self/fd/${fd}/`), name])

const absent = (path: FilePath) => notFound(`${shownPath(path)} does not exist`, "file_not_found")
const throughLink = (path: FilePath) =>
  invalid(`${shownPath(path)} passes through a link or a file on its way: links are never followed`, "link_in_path")

function kindOf(st: Stats): Kind {
  return st.isFile() ? "file" : st.isDirectory() ? "folder" : st.isSymbolicLink() ? "link" : "other"
}

/** The errors of a walk down `path`, in the API's words. */
function walkError(err: unknown, path: FilePath): unknown {
  if (errno(err) === "ENOENT") return absent(path)
  if (errno(err) === "ENOTDIR" || errno(err) === "ELOOP") return throughLink(path)
  return err
}

/** The root and the folders of `path` opened in turn, never through a link; `fn` runs with the last one, then all are closed. */
async function inFolder<T>(root: string, path: FilePath, fn: (fd: number) => T | Promise<T>): Promise<T> {
  const fds: number[] = []
  try {
    try {
      fds.push(openSync(root, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW))
      for (const name of path) fds.push(openSync(at(fds.at(-1)!, name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW))
    } catch (err) {
      throw walkError(err, path)
    }
    return await fn(fds.at(-1)!)
  } finally {
    for (const fd of fds) closeSync(fd)
  }
}

/** Runs `fn` in the folder holding `path`'s last segment, with that segment. */
const inParent = <T>(root: string, path: FilePath, fn: (dir: number, name: Buffer) => T | Promise<T>): Promise<T> =>
  inFolder(root, path.slice(0, -1), (dir) => fn(dir, path.at(-1)!))

const lstatAt = (dir: number, name: Buffer) => lstatSync(at(dir, name), { throwIfNoEntry: false })

/** The regular file `name` in `dir`, opened for reading through the handle that was checked. */
function openFile(dir: number, name: Buffer, path: FilePath): { fd: number; st: Stats } {
  let handle: number
  try {
    handle = openSync(at(dir, name), O_PATH | C.O_NOFOLLOW)
  } catch (err) {
    throw walkError(err, path)
  }
  try {
    const st = fstatSync(handle)
    if (!st.isFile())
      throw invalid(
        `${shownPath(path)} is ${st.isSymbolicLink() ? "a link" : `a ${kindOf(st)}`}, not a file`,
        "not_a_file",
      )
    return { fd: openSync(`/proc/self/fd/${handle}`, C.O_RDONLY | C.O_NOCTTY), st }
  } finally {
    closeSync(handle)
  }
}

/** The bytes of an open file, `size` of them at most, closed at the end or when the reader goes. */
function fileStream(fd: number, size: number): ReadableStream<Uint8Array> {
  let left = size
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    closeSync(fd)
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const buf = Buffer.allocUnsafe(Math.min(CHUNK, left))
          const n = left ? (await readAsync(fd, buf, 0, buf.length, null)).bytesRead : 0
          left -= n
          if (n) controller.enqueue(buf.subarray(0, n))
          // A file that shrank meanwhile ends early; one that grew is cut at the size announced.
          if (!n || !left) {
            close()
            controller.close()
          }
        } catch (err) {
          close()
          controller.error(err)
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  )
}

/** A tool run in the volume's folder, confined (see the module's comment), with the script's arguments escaped. */
function tool(
  root: string,
  writes: boolean,
  script: string,
  args: FilePath[],
  seconds: number,
  io: { stdin?: ReadableStream<Uint8Array>; signal?: AbortSignal } = {},
) {
  const decode = `d() { v=$(printf '%bx' "$1"); v=\${v%x}; }; `
  const cmd = confined(root, writes, ["sh", "-c", decode + script, "sh", ...args.map((p) => octal(joinOf(p)))])
  return spawnBounded(
    cmd,
    { stdin: io.stdin ?? "ignore", stdout: "pipe", stderr: "pipe" },
    { timeout: seconds, signal: io.signal },
  )
}

const joinOf = (p: FilePath) => Buffer.concat(p.flatMap((s, i) => (i ? [Buffer.from("/"), s] : [s])))

/** A tool's failure in the API's words, from what it printed. */
function toolError(stderr: string, path: FilePath, stopped: string | undefined): unknown {
  if (stopped === "timeout") return timedOut(`walking ${shownPath(path)} took too long`, "files_timeout")
  if (/No such file or directory/.test(stderr)) return absent(path)
  if (/Too many levels of symbolic links|Not a directory/.test(stderr)) return throughLink(path)
  return upstream(`the volume's files could not be read or written: ${stderr.trim().slice(-500)}`, "files_failed")
}

async function finished(run: ReturnType<typeof tool>, path: FilePath): Promise<void> {
  const [code, stderr] = await Promise.all([run.exited, new Response(run.proc.stderr).text()])
  if (code !== 0) throw toolError(stderr, path, run.stopped())
}

/**
 * A tool's output as a stream that ends as the tool did: a tool that failed before its first byte is
 * the caller's error; one that fails after errors the stream (the answer is aborted, never a cut tar
 * that looks whole).
 */
async function outputOf(run: ReturnType<typeof tool>, path: FilePath): Promise<ReadableStream<Uint8Array>> {
  const done = finished(run, path)
  done.catch(() => {})
  const reader = (run.proc.stdout as ReadableStream<Uint8Array>).getReader()
  const first = await reader.read()
  if (first.done) await done
  let held = first.value
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = held ? { done: false, value: held } : await reader.read()
          held = undefined
          if (!next.done) return controller.enqueue(next.value)
          await done
          controller.close()
        } catch (err) {
          controller.error(err)
        }
      },
      cancel: (reason) => reader.cancel(reason).catch(() => {}),
    },
    { highWaterMark: 0 },
  )
}

const FIND_FORMAT = "%y %m %s %U %G %T@\\0%f\\0%l\\0"
const TYPES: Record<number, Kind> = { 0x66: "file", 0x64: "folder", 0x6c: "link" }

/** Parses find's records: "<type> <mode> <size> <uid> <gid> <mtime>\0<name>\0<target>\0" each, numbers read in place. */
export function parseFind(out: Buffer): RawEntry[] {
  const entries: RawEntry[] = []
  let at = 0
  /** The number at `at` in `base` up to a space, a dot or a NUL; `at` past its end. */
  const number = (base: number) => {
    let n = 0
    for (let c = out[at]!; c >= 0x30 && c <= 0x39; c = out[++at]!) n = n * base + (c - 0x30)
    return n
  }
  const end = (from: number) => {
    const stop = out.indexOf(0, from)
    if (stop < 0) throw upstream("find's listing ended in the middle of an entry", "files_failed")
    return stop
  }
  while (at < out.length) {
    const type = out[at]!
    at += 2
    const mode = number(8)
    at++
    const size = number(10)
    at++
    const uid = number(10)
    at++
    const gid = number(10)
    at++
    let mtime = number(10)
    if (out[at] === 0x2e) {
      const from = ++at
      mtime += number(10) / 10 ** (at - from)
    }
    const nameEnd = end(at)
    const name = out.toString("latin1", nameEnd + 1, (at = end(nameEnd + 1)))
    const targetEnd = end(at + 1)
    const target = type === 0x6c ? out.toString("latin1", at + 1, targetEnd) : undefined
    at = targetEnd + 1
    entries.push({
      name,
      kind: TYPES[type] ?? "other",
      size,
      mode,
      uid,
      gid,
      mtime,
      ...(target !== undefined && { target }),
    })
  }
  return entries
}

/** The regular file `name` in `dir` replaced by `body` through a temp file of its own; see Files.write. */
async function replaceFile(
  dir: number,
  name: Buffer,
  path: FilePath,
  body: ReadableStream<Uint8Array> | Uint8Array,
  version: string | undefined,
): Promise<void> {
  const old = lstatAt(dir, name)
  if (old && !old.isFile()) throw invalid(`${shownPath(path)} is a ${kindOf(old)}, not a file`, "not_a_file")
  if (version !== undefined && !old) throw changed(path)
  const tmp = Buffer.concat([Buffer.from(`.hm-${randomBytes(6).toString("hex")}-`), name.subarray(0, 200)])
  const fd = openSync(at(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600)
  try {
    try {
      if (body instanceof Uint8Array) await writeAll(fd, body)
      else for await (const part of body) await writeAll(fd, part)
      // A new file belongs to its folder's owner, a replaced one keeps its owner and mode.
      const owner = old ?? fstatSync(dir)
      fchownSync(fd, owner.uid, owner.gid)
      fchmodSync(fd, old ? old.mode & 0o7777 : 0o644)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (version !== undefined && (await currentVersion(dir, name, path)) !== version) throw changed(path)
    renameSync(at(dir, tmp), at(dir, name))
  } catch (err) {
    try {
      unlinkSync(at(dir, tmp))
    } catch {}
    throw err
  }
  fsyncSync(dir)
}

async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length; )
    done += (await writeAsync(fd, bytes, done, bytes.length - done)).bytesWritten
}

/** The version of `name` in `dir` now (a file gone or no longer a file has changed). */
async function currentVersion(dir: number, name: Buffer, path: FilePath): Promise<string> {
  let file: { fd: number; st: Stats }
  try {
    file = openFile(dir, name, path)
  } catch {
    throw changed(path)
  }
  return versionOfStream(fileStream(file.fd, file.st.size))
}

/** The files of the folder `root` (a volume's Mountpoint on this host). */
export function localFiles(root: string): Files {
  return {
    async list(folder, page, signal) {
      const run = tool(
        root,
        false,
        `d "$1"; exec find "./$v" -maxdepth 1 -printf '${FIND_FORMAT}'`,
        [folder],
        WALK_SECONDS,
        {
          signal,
        },
      )
      const [out] = await Promise.all([new Response(run.proc.stdout).arrayBuffer(), finished(run, folder)])
      const [self, ...entries] = parseFind(Buffer.from(out))
      if (self?.kind === "link") throw throughLink(folder)
      if (self?.kind !== "folder") throw invalid(`${shownPath(folder)} is not a folder`, "not_a_folder")
      return paged(entries, page)
    },

    async read(path) {
      notRoot(path, "read as a file")
      const { fd, st } = await inParent(root, path, (dir, name) => openFile(dir, name, path))
      return { body: fileStream(fd, st.size), size: st.size, mtime: st.mtimeMs / 1000 }
    },

    async archive(path, signal) {
      const parent = path.slice(0, -1)
      const script = path.length
        ? `d "$1"; p=$v; d "$2"; exec tar -c -f - --numeric-owner -C "./$p" -- "$v"`
        : "exec tar -c -f - --numeric-owner ."
      // A missing path is told before the stream starts.
      if (path.length)
        await inParent(root, path, (dir, name) => {
          if (!lstatAt(dir, name)) throw absent(path)
        })
      return outputOf(tool(root, false, script, [parent, path.slice(-1)], STREAM_SECONDS, { signal }), path)
    },

    async write(path, body, _size, version) {
      notRoot(path, "replaced")
      await inParent(root, path, (dir, name) => replaceFile(dir, name, path, body, version))
    },

    async unpack(folder, tar, signal) {
      const guard = tarGuard(tar, checkUpload)
      // Unpacked into a new folder of its own, then its entries moved into place: all or nothing.
      const staging = Buffer.from(`.hm-unpack-${randomBytes(6).toString("hex")}`)
      await inFolder(root, folder, (dir) => mkdirSync(at(dir, staging), 0o700))
      const here = [...folder, staging]
      try {
        const run = tool(
          root,
          true,
          `d "$1"; exec tar -x -f - --same-owner --same-permissions --no-overwrite-dir -C "./$v"`,
          [here],
          STREAM_SECONDS,
          { stdin: guard.stream, signal },
        )
        await finished(run, folder).catch((err) => {
          throw guard.error ?? err
        })
        await inFolder(root, folder, (dir) => moveInto(dir, staging, folder))
      } finally {
        await removeTree(root, here).catch(() => {})
      }
    },

    async mkdir(path) {
      notRoot(path, "made")
      await inParent(root, path, (dir, name) => {
        try {
          mkdirSync(at(dir, name), 0o755)
        } catch (err) {
          if (errno(err) === "EEXIST") throw conflict(`${shownPath(path)} exists already`, "file_exists")
          throw walkError(err, path)
        }
        const owner = fstatSync(dir)
        const made = openSync(at(dir, name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW)
        try {
          fchownSync(made, owner.uid, owner.gid)
        } finally {
          closeSync(made)
        }
      })
    },

    async rename(from, to) {
      notRoot(from, "renamed")
      notRoot(to, "replaced")
      await inParent(root, from, (a, nameA) =>
        inParent(root, to, (b, nameB) => {
          if (!lstatAt(a, nameA)) throw absent(from)
          if (lstatAt(b, nameB)) throw conflict(`${shownPath(to)} exists already`, "file_exists")
          try {
            renameSync(at(a, nameA), at(b, nameB))
          } catch (err) {
            if (errno(err) === "EINVAL") throw invalid("a folder cannot be moved into itself", "invalid_path")
            throw walkError(err, from)
          }
        }),
      )
    },

    async remove(path) {
      notRoot(path, "removed")
      const kind = await inParent(root, path, (dir, name) => {
        const st = lstatAt(dir, name)
        if (!st) throw absent(path)
        if (st.isDirectory()) return "folder"
        unlinkSync(at(dir, name))
        return kindOf(st)
      })
      if (kind === "folder") await removeTree(root, path)
    },
  }
}

/** Removes the folder at `path` with everything below it (GNU rm, confined). */
const removeTree = (root: string, path: FilePath) =>
  finished(tool(root, true, `d "$1"; exec rm -r -f -- "./$v"`, [path], WALK_SECONDS), path)

/** Moves every entry of the folder `staging` in `dir` into `dir`; refused before anything moves when one is there already. */
function moveInto(dir: number, staging: Buffer, folder: FilePath): void {
  const from = openSync(at(dir, staging), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW)
  try {
    const names = readdirSync(`/proc/self/fd/${from}`, { encoding: "buffer" })
    const taken = names.find((n) => lstatAt(dir, n))
    if (taken) throw conflict(`${shownPath([...folder, taken])} exists already: nothing was unpacked`, "file_exists")
    for (const name of names) renameSync(at(from, name), at(dir, name))
  } finally {
    closeSync(from)
  }
}
