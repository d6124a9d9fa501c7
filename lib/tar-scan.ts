// A streaming reader of tar headers (ustar, pax and GNU long names) that lets the bytes pass
// unchanged: the volume import checks every entry's path before the engine sees it, and the
// "does this volume hold data" check reads only the first entries of an archive.
import { badRequest } from "./http-error.ts"

export interface TarEntry {
  name: string
  type: string
  linkname: string
  size: number
}

const BLOCK = 512
const text = (b: Uint8Array) => {
  const end = b.indexOf(0)
  return Buffer.from(end < 0 ? b : b.subarray(0, end)).toString("utf8")
}

function size(field: Uint8Array): number {
  if (field[0]! & 0x80) return field.subarray(1).reduce((n, byte) => n * 256 + byte, field[0]! & 0x7f)
  return parseInt(text(field).trim() || "0", 8)
}

/** Pax records "len key=value\n" as a map. */
function pax(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {}
  const s = Buffer.from(data).toString("utf8")
  for (let i = 0; i < s.length; ) {
    const space = s.indexOf(" ", i)
    const len = Number(s.slice(i, space))
    if (space < 0 || !len) break
    const record = s.slice(space + 1, i + len - 1)
    const eq = record.indexOf("=")
    out[record.slice(0, eq)] = record.slice(eq + 1)
    i += len
  }
  return out
}

/** Feeds bytes, calls `onEntry` once per entry with its final name (pax and GNU long names applied). */
export class TarScanner {
  private header = new Uint8Array(BLOCK)
  private filled = 0
  private skip = 0
  private capture: { type: string; data: Uint8Array; at: number } | undefined
  private next: Partial<TarEntry> = {}

  constructor(private onEntry: (e: TarEntry) => void) {}

  push(chunk: Uint8Array): void {
    let pos = 0
    while (pos < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - pos)
        if (this.capture && this.capture.at < this.capture.data.length) {
          const take = chunk.subarray(pos, pos + Math.min(n, this.capture.data.length - this.capture.at))
          this.capture.data.set(take, this.capture.at)
          this.capture.at += take.length
        }
        this.skip -= n
        pos += n
        if (this.skip === 0 && this.capture) this.captured()
        continue
      }
      const n = Math.min(BLOCK - this.filled, chunk.length - pos)
      this.header.set(chunk.subarray(pos, pos + n), this.filled)
      this.filled += n
      pos += n
      if (this.filled === BLOCK) {
        this.filled = 0
        this.headerDone()
      }
    }
  }

  private headerDone(): void {
    const h = this.header
    if (h.every((b) => b === 0)) return
    const type = String.fromCharCode(h[156]! || 48)
    const length = size(h.subarray(124, 136))
    this.skip = Math.ceil(length / BLOCK) * BLOCK
    if (type === "x" || type === "L" || type === "K") {
      if (length > 1 << 20) throw badRequest("a tar extended header is larger than 1 MiB", "unsafe_archive")
      this.capture = { type, data: new Uint8Array(length), at: 0 }
      if (this.skip === 0) this.captured()
      return
    }
    if (type === "g") return
    const prefix = text(h.subarray(345, 500))
    const raw = text(h.subarray(0, 100))
    const entry: TarEntry = {
      name: this.next.name ?? (prefix ? `${prefix}/${raw}` : raw),
      linkname: this.next.linkname ?? text(h.subarray(157, 257)),
      type,
      size: length,
    }
    this.next = {}
    this.onEntry(entry)
  }

  private captured(): void {
    const { type, data } = this.capture!
    this.capture = undefined
    if (type === "L") this.next.name = text(data)
    else if (type === "K") this.next.linkname = text(data)
    else {
      const p = pax(data)
      if (p.path !== undefined) this.next.name = p.path
      if (p.linkpath !== undefined) this.next.linkname = p.linkpath
    }
  }
}

const unsafe = (path: string) => path.startsWith("/") || path.split("/").includes("..")

/** Refuses an entry that would land outside the folder it is unpacked into. */
export function checkEntry(e: TarEntry): void {
  if (unsafe(e.name)) throw badRequest(`the archive entry "${e.name.slice(0, 200)}" points outside the volume`, "unsafe_archive")
  if (e.type === "1" && unsafe(e.linkname)) throw badRequest(`the hard link "${e.name.slice(0, 200)}" points outside the volume`, "unsafe_archive")
}

export interface TarGuard {
  /** The same bytes, read from the source only as fast as the consumer pulls them. */
  stream: ReadableStream<Uint8Array>
  /** Why the stream was refused, if it was. */
  readonly error: unknown
}

/**
 * The bytes unchanged; the stream fails on the first unsafe entry, before that entry is passed on.
 * A pull source with no queue of its own (not a TransformStream, whose queue an upload drains as
 * fast as it can), so memory stays flat in the size of the archive.
 */
export function tarGuard(source: ReadableStream<Uint8Array>): TarGuard {
  const scanner = new TarScanner(checkEntry)
  const reader = source.getReader()
  let error: unknown
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read()
        if (done) return controller.close()
        try {
          scanner.push(value)
        } catch (err) {
          error = err
          reader.cancel(err).catch(() => {})
          throw err
        }
        controller.enqueue(value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
  return {
    stream,
    get error() {
      return error
    },
  }
}
