// The volume import's tar guard, and the reader of a volume archive's first entries. Archives are
// read by tar-stream's extract (ustar, pax `path`/`linkpath`/`size` records, GNU long names and
// long links); the bytes pass on unchanged. An entry that tar-stream and the engine's Go
// archive/tar would frame differently (a size on a type that holds no data, a type tar-stream does
// not know) is refused, since the next header could then hide from one of them.
import { extract, type Extract, type Header } from "tar-stream"
import { badRequest } from "./http-error.ts"

export interface TarEntry {
  name: string
  /** The typeflag: "0" file, "1" hard link, "2" symlink, "3"/"4" device, "5" directory, "6" fifo, "7" contiguous file; "?" for any other. */
  type: string
  linkname: string
  size: number
}

const TYPEFLAG: Record<string, string> = {
  file: "0",
  link: "1",
  symlink: "2",
  "character-device": "3",
  "block-device": "4",
  directory: "5",
  fifo: "6",
  "contiguous-file": "7",
}

const entryOf = (h: Header): TarEntry => ({ name: h.name, type: TYPEFLAG[h.type] ?? "?", linkname: h.linkname ?? "", size: h.size })

const unreadable = (err: Error) => badRequest(`the archive cannot be read: ${err.message}`, "invalid_archive")

/**
 * Reads the chunks pushed in and calls `onEntry` once per entry with its final name, before the
 * chunk that completes the entry's header is accepted. A throw from `onEntry` fails the scan.
 */
export class TarScanner {
  // A high-water mark of one byte makes every write report its end with a "drain".
  private parser: Extract = extract({ highWaterMark: 1 })
  private failure: unknown
  private settle: (() => void) | undefined

  constructor(onEntry: (e: TarEntry) => void) {
    this.parser.on("entry", (header, stream, next) => {
      stream.on("error", () => {}) // the parser's own "error" carries the reason
      try {
        onEntry(entryOf(header))
      } catch (err) {
        this.failure ??= err
        return next(err as Error)
      }
      stream.on("end", () => next()).resume()
    })
    this.parser.on("error", (err: Error) => (this.failure ??= unreadable(err)))
    this.parser.on("drain", () => this.settle?.())
    this.parser.on("close", () => this.settle?.())
  }

  /** Resolves once the chunk is read (push one at a time); rejects with the first refusal or read error. */
  push(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0) return this.failure ? Promise.reject(this.failure) : Promise.resolve()
    return this.until(() => this.parser.write(chunk))
  }

  /** Resolves at the end of a whole archive; rejects when it stops in the middle of an entry. */
  end(): Promise<void> {
    return this.until(() => this.parser.end(null))
  }

  private until(start: () => unknown): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.settle = () => {
        this.settle = undefined
        if (this.failure) reject(this.failure)
        else resolve()
      }
      start()
    })
  }
}

const unsafe = (path: string) => path.startsWith("/") || path.split("/").includes("..")
const quoted = (name: string) => `"${name.slice(0, 200)}"`

/** Types whose data the engine skips whatever size the header gives them. */
const NO_DATA = new Set(["1", "2", "3", "4", "5", "6"])

/** A size tar-stream and the engine would not both skip: the next header could then hide from one of them. */
const ambiguousSize = (e: TarEntry) => e.size > 0 && (NO_DATA.has(e.type) || (e.type === "0" && e.name.endsWith("/")))

/** Refuses an entry that would land outside the folder it is unpacked into, or that the engine could read differently. */
export function checkEntry(e: TarEntry): void {
  if (unsafe(e.name)) throw badRequest(`the archive entry ${quoted(e.name)} points outside the volume`, "unsafe_archive")
  if (e.type === "1" && unsafe(e.linkname)) throw badRequest(`the hard link ${quoted(e.name)} points outside the volume`, "unsafe_archive")
  if (e.type === "?") throw badRequest(`the archive entry ${quoted(e.name)} has a type the import does not unpack`, "unsafe_archive")
  if (ambiguousSize(e)) throw badRequest(`the archive entry ${quoted(e.name)} gives a size to an entry that holds no data`, "unsafe_archive")
}

export interface TarGuard {
  /** The same bytes, read from the source only as fast as the consumer pulls them. */
  stream: ReadableStream<Uint8Array>
  /** Why the stream was refused, if it was. */
  readonly error: unknown
}

/**
 * The bytes unchanged; the stream fails on the first unsafe entry, before that entry is passed on,
 * and at the end when the archive stops in the middle of an entry. A pull source with no queue of
 * its own (not a TransformStream, whose queue an upload drains as fast as it can), so memory stays
 * flat in the size of the archive.
 */
export function tarGuard(source: ReadableStream<Uint8Array>): TarGuard {
  const scanner = new TarScanner(checkEntry)
  const reader = source.getReader()
  let error: unknown
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read()
        try {
          await (done ? scanner.end() : scanner.push(value))
        } catch (err) {
          error = err
          reader.cancel(err).catch(() => {})
          throw err
        }
        if (done) controller.close()
        else controller.enqueue(value)
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
