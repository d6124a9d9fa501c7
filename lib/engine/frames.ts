// Decoding of the engine's byte streams: multiplexed stdout/stderr frames, lines, and JSON lines.

export type StreamName = "stdout" | "stderr"

export interface Chunk {
  stream: StreamName
  data: Uint8Array
}

/** Splits the engine's multiplexed stream ([stream,0,0,0,size BE32] + payload) into chunks. */
export async function* demux(source: AsyncIterable<Uint8Array>): AsyncGenerator<Chunk> {
  let buf: Uint8Array = new Uint8Array(0)
  for await (const piece of source) {
    buf = concat(buf, piece)
    // Frames are read in place; only the unfinished rest is kept (copying the rest after every
    // frame made a large chunk of small frames cost quadratic time).
    let at = 0
    while (buf.length - at >= 8) {
      const size = new DataView(buf.buffer, buf.byteOffset + at, 8).getUint32(4)
      if (buf.length - at < 8 + size) break
      yield { stream: buf[at] === 2 ? "stderr" : "stdout", data: buf.subarray(at + 8, at + 8 + size) }
      at += 8 + size
    }
    buf = buf.slice(at)
  }
}

/** A TTY stream carries no frames: everything is stdout. */
export async function* raw(source: AsyncIterable<Uint8Array>): AsyncGenerator<Chunk> {
  for await (const data of source) yield { stream: "stdout", data }
}

/** Reassembles whole lines per stream; a last unterminated line is flushed at the end. */
export async function* lines(chunks: AsyncIterable<Chunk>): AsyncGenerator<{ stream: StreamName; text: string }> {
  const decoder = { stdout: new TextDecoder(), stderr: new TextDecoder() }
  const pending = { stdout: "", stderr: "" }
  for await (const { stream, data } of chunks) {
    const parts = (pending[stream] + decoder[stream].decode(data, { stream: true })).split("\n")
    pending[stream] = parts.pop() ?? ""
    for (const text of parts) yield { stream, text: text.endsWith("\r") ? text.slice(0, -1) : text }
  }
  for (const stream of ["stdout", "stderr"] as const) if (pending[stream]) yield { stream, text: pending[stream] }
}

/** Splits "2024-01-01T00:00:00.000000000Z message" as written by the engine with timestamps=1. */
export function splitTimestamp(text: string): { ts: string; line: string } {
  const space = text.indexOf(" ")
  const head = space < 0 ? text : text.slice(0, space)
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/.test(head)) return { ts: "", line: text }
  return { ts: head, line: space < 0 ? "" : text.slice(space + 1) }
}

/** Parses a stream of newline-delimited JSON objects, as the engine's event and progress streams are. */
export async function* jsonLines<T>(source: AsyncIterable<Uint8Array>): AsyncGenerator<T> {
  for await (const { text } of lines(raw(source))) if (text.trim()) yield JSON.parse(text) as T
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
