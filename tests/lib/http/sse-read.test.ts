import { expect, test } from "bun:test"
import { sseMessages } from "#lib/http/sse-read.ts"

/** A body that arrives in the given pieces, as a network delivers it. */
const arriving = (...pieces: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of pieces) c.enqueue(new TextEncoder().encode(p))
      c.close()
    },
  })

const read = async (body: ReadableStream<Uint8Array>) => Array.fromAsync(sseMessages(body))

test("messages come whole whatever the chunks, with CRLF, comments and multi-line data", async () => {
  const messages = await read(
    arriving(
      ": connected\r\n\r\nda",
      'ta: {"a":\r\ndata: 1}\r\n\r',
      '\nevent: error\ndata: {"b":"é"}\n\n',
      ": ping\n\n",
    ),
  )
  expect(messages).toEqual([
    { event: "message", data: { a: 1 } },
    { event: "error", data: { b: "é" } },
  ])
})

test("a character split between chunks is decoded once whole", async () => {
  const bytes = new TextEncoder().encode('data: {"w":"Straße"}\n\n')
  const cut = bytes.indexOf(0xc3) + 1
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes.slice(0, cut))
      c.enqueue(bytes.slice(cut))
      c.close()
    },
  })
  expect(await read(body)).toEqual([{ event: "message", data: { w: "Straße" } }])
})

test("a message without data is skipped; a stream cut mid-message yields what was whole", async () => {
  expect(await read(arriving("event: ping\n\n", 'data: {"x":1}\n\n', 'data: {"y":'))).toEqual([
    { event: "message", data: { x: 1 } },
  ])
})
