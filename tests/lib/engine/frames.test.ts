import { expect, test } from "bun:test"
import { demux, jsonLines, lines, raw, splitTimestamp } from "#lib/engine/frames.ts"

async function* chunks(...parts: Uint8Array[]) {
  yield* parts
}
const frame = (stream: number, text: string) => {
  const payload = new TextEncoder().encode(text)
  const out = new Uint8Array(8 + payload.length)
  out[0] = stream
  new DataView(out.buffer).setUint32(4, payload.length)
  out.set(payload, 8)
  return out
}

test("demux splits frames even when they straddle chunk boundaries, and lines are rebuilt per stream", async () => {
  const all = new Uint8Array([...frame(1, "hel"), ...frame(2, "oops\n"), ...frame(1, "lo\nwor"), ...frame(1, "ld\n")])
  const got = await Array.fromAsync(lines(demux(chunks(all.slice(0, 5), all.slice(5, 20), all.slice(20)))))
  expect(got).toEqual([
    { stream: "stderr", text: "oops" },
    { stream: "stdout", text: "hello" },
    { stream: "stdout", text: "world" },
  ])
})

test("a last line without newline is flushed; CRLF is trimmed", async () => {
  const got = await Array.fromAsync(lines(raw(chunks(new TextEncoder().encode("a\r\nb")))))
  expect(got.map((l) => l.text)).toEqual(["a", "b"])
})

test("splitTimestamp and jsonLines", async () => {
  expect(splitTimestamp("2024-05-01T10:00:00.123456789Z hello world")).toEqual({
    ts: "2024-05-01T10:00:00.123456789Z",
    line: "hello world",
  })
  expect(splitTimestamp("no stamp")).toEqual({ ts: "", line: "no stamp" })
  const got = await Array.fromAsync(
    jsonLines(chunks(new TextEncoder().encode('{"a":1}\n{"a"'), new TextEncoder().encode(":2}\n"))),
  )
  expect(got).toEqual([{ a: 1 }, { a: 2 }])
})
