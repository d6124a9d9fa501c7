import { expect, test } from "bun:test"
import { encodeFrame, FrameError, FrameReader } from "#lib/http/worker-frames.ts"

test("frames cut anywhere come back whole, header and payload", () => {
  const payload = new Uint8Array(100_000).map((_, i) => i % 251)
  const bytes = Buffer.concat([
    encodeFrame({ id: 1, text: "é😀" }),
    encodeFrame({ id: 2 }, payload),
    encodeFrame({ id: 3 }),
  ])
  for (const size of [1, 7, 8, 9, 1000, bytes.length]) {
    const reader = new FrameReader()
    const frames = []
    for (let at = 0; at < bytes.length; at += size) frames.push(...reader.push(bytes.subarray(at, at + size)))
    expect(frames.map((f) => f.header)).toEqual([{ id: 1, text: "é😀" }, { id: 2 }, { id: 3 }])
    expect(frames[1]!.payload).toEqual(payload)
    expect(frames[0]!.payload.length).toBe(0)
  }
})

test("a header that is not JSON, or a frame over the limit, is an error", () => {
  const bad = new Uint8Array(12)
  new DataView(bad.buffer).setUint32(0, 4, true)
  bad.set(Buffer.from("nope"), 8)
  expect(() => new FrameReader().push(bad)).toThrow(FrameError)
  const huge = new Uint8Array(8)
  new DataView(huge.buffer).setUint32(4, 0xffffffff, true)
  expect(() => new FrameReader().push(huge)).toThrow(FrameError)
})
