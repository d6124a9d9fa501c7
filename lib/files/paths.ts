// Paths inside a volume or a container, as bytes: a file's name on Linux is any bytes but "/" and
// NUL, so a path is kept as its segments' bytes from the request to the system call and back. In
// JSON a name is text (`name`, invalid UTF-8 shown as U+FFFD) with its exact bytes beside it in
// base64url (`name64`) when the text cannot carry them; a request names a path as text (`path`) or
// as those bytes (`path64`). "." and ".." are never segments: nothing a request names leaves the root.
import { invalid } from "../errors/errors.ts"

/** A path below a root, segment by segment; the root itself is no segment at all. */
export type FilePath = Buffer[]

const fatal = new TextDecoder("utf-8", { fatal: true })
const lossy = new TextDecoder()

/** The bytes' text when they are UTF-8, else undefined. */
export function utf8(bytes: Uint8Array): string | undefined {
  try {
    return fatal.decode(bytes)
  } catch {
    return undefined
  }
}

/** A name as JSON carries it: its text, and its exact bytes when the text cannot hold them. */
export function nameOf(bytes: Buffer): { name: string; name64?: string } {
  const text = utf8(bytes)
  return text === undefined ? { name: lossy.decode(bytes), name64: bytes.toString("base64url") } : { name: text }
}

/** The segments of a path's bytes ("a/b", "/a/b/" and "" for the root); "." and ".." are refused. */
export function splitPath(bytes: Buffer): FilePath {
  const segments: FilePath = []
  let start = 0
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x2f) continue
    const segment = bytes.subarray(start, i)
    start = i + 1
    if (!segment.length) continue
    if (segment.includes(0)) throw invalid("a path holds no NUL byte", "invalid_path")
    const dots = segment.toString("latin1")
    if (dots === "." || dots === "..")
      throw invalid(`a path is a list of names below the root, without "." or ".." in it`, "invalid_path")
    segments.push(Buffer.from(segment))
  }
  return segments
}

/** The path a request names: `path` as text or `path64` as base64url bytes (the root when neither is given). */
export function parsePath(given: { path?: string; path64?: string }, what = "path"): FilePath {
  if (given.path !== undefined && given.path64 !== undefined)
    throw invalid(`give ${what} or ${what}64, not both`, "invalid_path")
  if (given.path64 !== undefined) {
    if (!/^[A-Za-z0-9_-]*={0,2}$/.test(given.path64)) throw invalid(`${what}64 is not base64url`, "invalid_path")
    return splitPath(Buffer.from(given.path64, "base64url"))
  }
  return splitPath(Buffer.from(given.path ?? "", "utf8"))
}

/** The path's bytes joined with "/" (no leading slash; empty for the root). */
export const joinPath = (path: FilePath): Buffer =>
  Buffer.concat(path.flatMap((s, i) => (i ? [Buffer.from("/"), s] : [s])))

/** The path as a person reads it in a message: "/" and its segments, control characters escaped. */
export function shownPath(path: FilePath): string {
  const text = `/${lossy.decode(joinPath(path))}`
  return JSON.stringify(text).slice(1, -1)
}

/** The path as JSON carries it back: `path` and, when not UTF-8, `path64`. */
export function pathOf(path: FilePath): { path: string; path64?: string } {
  const { name, name64 } = nameOf(joinPath(path))
  return name64 === undefined ? { path: name } : { path: name, path64: name64 }
}

/**
 * Bytes as `printf '%b'` arguments: every byte an octal escape, so a name of any bytes passes through
 * argv (which carries UTF-8 text only) as ASCII, and a shell script turns it back into the bytes.
 */
export const octal = (bytes: Buffer): string => [...bytes].map((b) => `\\0${b.toString(8).padStart(3, "0")}`).join("")

/** A Content-Disposition for a download named `bytes`: an ASCII fallback and the UTF-8 name (RFC 6266). */
export function disposition(bytes: Buffer, suffix = ""): string {
  const name = `${lossy.decode(bytes)}${suffix}`
  const ascii = name.replace(/[^\x20-\x7e]|["\\%;]/g, "_") || "download"
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}
