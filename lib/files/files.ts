// What browsing a tree of files offers, whatever holds it (a volume's own folder on this host, a
// volume through a helper container, a container's filesystem through the archive API), and what a
// listing answers: entries sorted and paged, each name's bytes kept (paths.ts).
import { createHash } from "node:crypto"
import { conflict, invalid, tooLarge, unsupported } from "../errors/errors.ts"
import { type FilePath, nameOf, shownPath, utf8 } from "./paths.ts"

export type Kind = "file" | "folder" | "link" | "other"

/** One entry of a folder, as the API answers it. */
export interface FileEntry {
  name: string
  /** The name's bytes in base64url, when they are not UTF-8. */
  name64?: string
  kind: Kind
  size: number
  /** The permission bits in octal ("0644"), with setuid, setgid and sticky. */
  mode: string
  uid: number
  gid: number
  /** Last modification, ISO 8601. */
  mtime: string
  /** A link's target as it is written (never followed). */
  target?: string
  target64?: string
}

/**
 * An entry as a tree hands it over: the name and target still bytes, as "binary" strings (one char
 * per byte, latin1: 100,000 of them weigh a tenth of as many Buffers, and compare as bytes do), the
 * time in seconds.
 */
export interface RawEntry {
  name: string
  kind: Kind
  size: number
  mode: number
  uid: number
  gid: number
  mtime: number
  target?: string
}

export const SORTS = ["name", "size", "mtime"] as const
export type Sort = (typeof SORTS)[number]

export interface Page {
  offset: number
  limit: number
  sort: Sort
  /** Descending instead of ascending. */
  reverse: boolean
}

export interface Listing {
  entries: FileEntry[]
  /** Entries in the folder, all pages together. */
  total: number
}

/** A file's content on its way out: the bytes, and what is known of it before they flow. */
export interface FileStream {
  body: ReadableStream<Uint8Array>
  size: number
  mtime: number
}

/** A text file as the editor takes it: its text, and the version a later write is checked against. */
export interface TextFile {
  text: string
  version: string
  size: number
}

/** The largest text file read into the editor, and written back from it. */
export const TEXT_MAX_BYTES = 2 * 1024 * 1024

/** Everything a tree of files offers; each path is relative to the tree's root and never leaves it. */
export interface Files {
  list(folder: FilePath, page: Page, signal?: AbortSignal): Promise<Listing>
  /** A regular file's bytes (a link, a folder or a device is refused). */
  read(path: FilePath, signal?: AbortSignal): Promise<FileStream>
  /** A file or a folder with everything below it, as a tar whose entries are named from the path's last segment. */
  archive(path: FilePath, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>>
  /**
   * Replaces (or creates) the regular file at `path` with `body`, whole or not at all; with `version`,
   * only while the file is still the one read with that version (409 `file_changed` otherwise).
   * `size` is the body's length when known.
   */
  write(path: FilePath, body: ReadableStream<Uint8Array> | Uint8Array, size?: number, version?: string): Promise<void>
  /** Unpacks a tar into the folder: all its entries or none, never over an entry that is there. */
  unpack(folder: FilePath, tar: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<void>
  mkdir(path: FilePath): Promise<void>
  rename(from: FilePath, to: FilePath): Promise<void>
  /** Removes a file, a link (never what it leads to) or a folder with everything below it. */
  remove(path: FilePath): Promise<void>
}

/** What the editor's version of a text is: the SHA-256 of its bytes. */
export const versionOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** The version of a file's bytes as they stream by, never held whole (a version check of a file of any size). */
export async function versionOfStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hash = createHash("sha256")
  for await (const part of stream) hash.update(part)
  return hash.digest("hex")
}

/** A file's bytes as the editor's text: refused above the limit or when they are not UTF-8. */
export function textOf(path: FilePath, bytes: Uint8Array): TextFile {
  if (bytes.length > TEXT_MAX_BYTES)
    throw tooLarge(`${shownPath(path)} is larger than ${TEXT_MAX_BYTES} bytes: download it instead`, "file_too_large")
  const text = utf8(bytes)
  if (text === undefined || text.includes("\0"))
    throw unsupported(`${shownPath(path)} is not UTF-8 text: download it instead`, "not_text")
  return { text, version: versionOf(bytes), size: bytes.length }
}

/** Reads a stream whole, refusing more than `max` bytes. */
export async function readAll(path: FilePath, stream: ReadableStream<Uint8Array>, max: number): Promise<Buffer> {
  const parts: Uint8Array[] = []
  let size = 0
  for await (const part of stream) {
    size += part.length
    if (size > max) {
      await stream.cancel().catch(() => {})
      throw tooLarge(`${shownPath(path)} is larger than ${max} bytes: download it instead`, "file_too_large")
    }
    parts.push(part)
  }
  return Buffer.concat(parts)
}

/** The text file at `path` of `files`. */
export async function readText(files: Files, path: FilePath): Promise<TextFile> {
  const { body, size } = await files.read(path)
  if (size > TEXT_MAX_BYTES) {
    await body.cancel().catch(() => {})
    throw tooLarge(`${shownPath(path)} is larger than ${TEXT_MAX_BYTES} bytes: download it instead`, "file_too_large")
  }
  return textOf(path, await readAll(path, body, TEXT_MAX_BYTES))
}

/** The 409 of a write whose file changed since it was read. */
export const changed = (path: FilePath) =>
  conflict(`${shownPath(path)} changed since it was read: load it again and redo the edit`, "file_changed")

/** The root cannot be renamed, removed or replaced. */
export function notRoot(path: FilePath, what: string): void {
  if (!path.length) throw invalid(`the root folder cannot be ${what}`, "invalid_path")
}

const MODE_BITS = 0o7777

const byName = (a: RawEntry, b: RawEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
const compare = {
  name: byName,
  size: (a: RawEntry, b: RawEntry) => a.size - b.size || byName(a, b),
  mtime: (a: RawEntry, b: RawEntry) => a.mtime - b.mtime || byName(a, b),
}

/** Bytes as a binary string, and back. */
export const binary = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1")
export const bytesOf = (text: string): Buffer => Buffer.from(text, "latin1")

/** The entry as the API answers it. */
export function entryOf(e: RawEntry): FileEntry {
  const target = e.target !== undefined ? nameOf(bytesOf(e.target)) : undefined
  return {
    ...nameOf(bytesOf(e.name)),
    kind: e.kind,
    size: e.size,
    mode: (e.mode & MODE_BITS).toString(8).padStart(4, "0"),
    uid: e.uid,
    gid: e.gid,
    mtime: new Date(e.mtime * 1000).toISOString(),
    ...(target && { target: target.name, ...(target.name64 && { target64: target.name64 }) }),
  }
}

/** A folder's entries sorted (folders first, then by the sort, names as bytes) and one page of them made into answers. */
export function paged(entries: RawEntry[], page: Page): Listing {
  const by = compare[page.sort]
  const sign = page.reverse ? -1 : 1
  entries.sort((a, b) =>
    (a.kind === "folder") !== (b.kind === "folder") ? (a.kind === "folder" ? -1 : 1) : sign * by(a, b),
  )
  return { entries: entries.slice(page.offset, page.offset + page.limit).map(entryOf), total: entries.length }
}
