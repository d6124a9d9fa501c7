// The two tar shapes files move in through the engine's archive API: one regular file written as a
// tar of one entry (its size known before its bytes flow), and the first entry of a tar the engine
// sends, read with tar-stream, its data passed on as it comes.
import { Readable } from "node:stream"
import tar from "tar-stream"
import { invalid } from "../errors/errors.ts"

const BLOCK = 512

/** The USTAR header of a regular file `name` (ASCII, under 100 bytes) of `size` bytes. */
export function fileHeader(
  name: string,
  size: number,
  mode = 0o600,
  mtime = Math.floor(Date.now() / 1000),
): Uint8Array {
  const h = Buffer.alloc(BLOCK)
  h.write(name, 0, 100, "ascii")
  h.write(`${mode.toString(8).padStart(7, "0")}\0`, 100, "ascii")
  h.write("0000000\0", 108, "ascii")
  h.write("0000000\0", 116, "ascii")
  if (size < 8 ** 11) h.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "ascii")
  else {
    // base-256 for 8 GiB and more: the top bit set, the size big-endian in the field's bytes.
    h[124] = 0x80
    let n = BigInt(size)
    for (let i = 135; i > 124; i--, n >>= 8n) h[i] = Number(n & 0xffn)
  }
  h.write(`${mtime.toString(8).padStart(11, "0")}\0`, 136, "ascii")
  h.write("        ", 148, "ascii")
  h.write("0", 156, "ascii")
  h.write("ustar\0" + "00", 257, "ascii")
  let sum = 0
  for (const b of h) sum += b
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii")
  return h
}

/** A tar holding one regular file: its `header`, then `size` bytes of `body` (fewer or more is refused, the stream failing). */
export function fileTar(
  header: Uint8Array,
  size: number,
  body: ReadableStream<Uint8Array> | Uint8Array,
): ReadableStream<Uint8Array> {
  const source = body instanceof Uint8Array ? new Response(body as BodyInit).body! : body
  const reader = source.getReader()
  let sent = 0
  let stage: "header" | "data" | "end" | "done" = "header"
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (stage === "header") {
          stage = "data"
          return controller.enqueue(header)
        }
        if (stage === "data") {
          const { done, value } = await reader.read()
          if (!done) {
            sent += value.length
            if (sent > size) {
              const err = invalid(`the body is longer than its ${size} bytes`, "length_mismatch")
              await reader.cancel(err).catch(() => {})
              return controller.error(err)
            }
            return controller.enqueue(value)
          }
          if (sent !== size)
            return controller.error(invalid(`the body ended after ${sent} of ${size} bytes`, "length_mismatch"))
          stage = "end"
        }
        if (stage === "end") {
          stage = "done"
          controller.enqueue(new Uint8Array(((BLOCK - (size % BLOCK)) % BLOCK) + 2 * BLOCK))
          return controller.close()
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
}

export interface TarFile {
  header: tar.Header
  /** The entry's data (none for a link or a folder); cancelling it ends the whole tar. */
  body: ReadableStream<Uint8Array>
}

/** The first entry of a tar stream: its header once read, its data as it comes. */
export async function firstEntry(source: ReadableStream<Uint8Array>): Promise<TarFile> {
  const extract = tar.extract()
  const input = Readable.fromWeb(source as never)
  input.on("error", (err) => extract.destroy(err))
  input.pipe(extract as unknown as NodeJS.WritableStream)
  const entries = extract[Symbol.asyncIterator]()
  const first = await entries.next()
  const stop = () => {
    input.destroy()
    extract.destroy()
  }
  if (first.done) {
    stop()
    throw invalid("the engine sent an empty archive", "empty_archive")
  }
  const entry = first.value
  const chunks = entry[Symbol.asyncIterator]()
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next()
          if (next.done) {
            stop()
            controller.close()
          } else controller.enqueue(next.value as Uint8Array)
        } catch (err) {
          stop()
          controller.error(err)
        }
      },
      cancel: stop,
    },
    { highWaterMark: 0 },
  )
  return { header: entry.header, body }
}
