import { afterAll, expect, test } from "bun:test"
import { frame, sse } from "#lib/http/sse.ts"
import { EventBus } from "#lib/engine/events.ts"

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

test("a frozen value's message is written once and sent whole to every stream; other values each time", () => {
  const shared = Object.freeze({ seq: 1, type: "container", attributes: Object.freeze({ name: "web" }) })
  expect(frame(shared)).toBe(frame(shared))
  expect(text(frame(shared))).toBe(`data: ${JSON.stringify(shared)}\n\n`)
  const open = { seq: 2 }
  const first = frame(open)
  open.seq = 3
  expect(first).not.toBe(frame(open))
  expect(text(frame(open))).toBe('data: {"seq":3}\n\n')
})

test("the event bus hands every subscriber the same frozen event, its attributes frozen too", async () => {
  const bus = new EventBus()
  const abort = new AbortController()
  const a = bus.subscribe(abort.signal)
  const b = bus.subscribe(abort.signal)
  const firstA = a.next()
  const firstB = b.next()
  bus.publish({ type: "node", action: "offline", name: "n1", attributes: { reason: "gone" } })
  const [ea, eb] = [(await firstA).value!, (await firstB).value!]
  expect(ea).toBe(eb)
  expect(Object.isFrozen(ea) && Object.isFrozen(ea.attributes)).toBe(true)
  abort.abort()
})

// Over real sockets: a hundred streams of the same bus each read every event whole and in order.
const bus = new EventBus()
const server = Bun.serve({ port: 0, fetch: (req) => sse(bus.subscribe(req.signal), req.signal) })
afterAll(() => server.stop(true))

test("a hundred SSE streams of one bus each get every event, whole and in order", async () => {
  const aborts = Array.from({ length: 100 }, () => new AbortController())
  const readers = await Promise.all(
    aborts.map(async (abort) => {
      const res = await fetch(server.url, { signal: abort.signal })
      const reader = res.body!.getReader()
      await reader.read() // ": connected"
      return reader
    }),
  )
  while (bus.subscriberCount < 100) await Bun.sleep(1)
  for (let i = 0; i < 50; i++)
    bus.publish({ type: "service", action: "tick", message: `event ${i} ${"x".repeat(i * 40)}` })
  const seen = await Promise.all(
    readers.map(async (reader) => {
      let got = ""
      while ((got.match(/\n\n/g) ?? []).length < 50) got += text((await reader.read()).value!)
      return got
        .split("\n\n")
        .filter(Boolean)
        .map((m) => JSON.parse(m.slice("data: ".length)).message)
    }),
  )
  const expected = Array.from({ length: 50 }, (_, i) => `event ${i} ${"x".repeat(i * 40)}`)
  for (const messages of seen) expect(messages).toEqual(expected)
  for (const abort of aborts) abort.abort()
})
