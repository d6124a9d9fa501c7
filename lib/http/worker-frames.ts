// The framed protocol between the service and its worker processes (speech: lib/tts/pool.ts and
// lib/tts/worker.ts; the host terminal: lib/host), over the worker's stdin and stdout. One frame:
//   [u32 LE: header bytes][u32 LE: payload bytes][header: UTF-8 JSON][payload: raw bytes]
// The payload carries audio, so no base64 and no structured clone on the way (Bun's IPC with
// `serialization: "advanced"` blocked the event loop for ~350 ms on a 20 MB array; a pipe does not).

export interface Frame<H = unknown> {
  header: H
  payload: Uint8Array
}

/** Frames larger than this are refused: the longest input's MP3 is ~25 MB. */
export const MAX_FRAME = 256 * 1024 * 1024

export function encodeFrame(header: unknown, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const json = Buffer.from(JSON.stringify(header))
  const out = new Uint8Array(8 + json.length + payload.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, json.length, true)
  view.setUint32(4, payload.length, true)
  out.set(json, 8)
  out.set(payload, 8 + json.length)
  return out
}

export class FrameError extends Error {}

/**
 * Reassembles frames from a byte stream cut anywhere. Chunks are kept as they came and joined once a
 * whole frame is there, so a large frame costs one copy, not one per chunk.
 */
export class FrameReader {
  private chunks: Uint8Array[] = []
  private size = 0

  push(chunk: Uint8Array): Frame[] {
    this.chunks.push(chunk)
    this.size += chunk.length
    const frames: Frame[] = []
    for (;;) {
      if (this.size < 8) return frames
      const head = this.peek(8)
      const view = new DataView(head.buffer, head.byteOffset, 8)
      const h = view.getUint32(0, true)
      const p = view.getUint32(4, true)
      if (h + p > MAX_FRAME) throw new FrameError(`a frame of ${h + p} bytes is over the limit`)
      const total = 8 + h + p
      if (this.size < total) return frames
      const all = this.take(total)
      let header: unknown
      try {
        header = JSON.parse(Buffer.from(all.buffer, all.byteOffset + 8, h).toString("utf8"))
      } catch {
        throw new FrameError("a frame header is not JSON")
      }
      frames.push({ header, payload: all.subarray(8 + h) })
    }
  }

  /** The first `n` bytes (n <= size), joining leading chunks when the first is shorter. */
  private peek(n: number): Uint8Array {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)]
    return this.chunks[0]!
  }

  /** Removes and returns the first `n` bytes as one array. */
  private take(n: number): Uint8Array {
    let count = 0
    let used = 0
    while (used < n) used += this.chunks[count++]!.length
    const joined = count === 1 ? this.chunks[0]! : Buffer.concat(this.chunks.slice(0, count), used)
    const rest = joined.subarray(n)
    this.chunks = rest.length > 0 ? [rest, ...this.chunks.slice(count)] : this.chunks.slice(count)
    this.size -= n
    return joined.subarray(0, n)
  }
}
