import { expect, test } from "bun:test"
import { heapStats } from "bun:jsc"
import { EventBus } from "#lib/engine/events.ts"

const reactions = () => {
  Bun.gc(true)
  const counts = heapStats().objectTypeCounts
  return (counts.SlimPromiseReaction ?? 0) + (counts.Promise ?? 0)
}

test("a long-lived subscriber keeps no memory per event it was woken for", async () => {
  const bus = new EventBus()
  const abort = new AbortController()
  let received = 0
  const reading = (async () => {
    for await (const _ of bus.subscribe(abort.signal)) received++
  })()
  const publishOne = async () => {
    bus.publish({ type: "service", action: "probe" })
    await Bun.sleep(0)
  }
  for (let i = 0; i < 1000; i++) await publishOne()
  const before = reactions()
  for (let i = 0; i < 20_000; i++) await publishOne()
  const grown = reactions() - before
  abort.abort()
  await reading
  expect(received).toBe(21_000)
  // Before the fix each wake left a reaction on the subscriber's abort promise: 20 000 here.
  expect(grown).toBeLessThan(1000)
})

test("an abort ends a waiting subscriber", async () => {
  const bus = new EventBus()
  const abort = new AbortController()
  const reading = (async () => {
    const got: string[] = []
    for await (const e of bus.subscribe(abort.signal)) got.push(e.action)
    return got
  })()
  bus.publish({ type: "service", action: "one" })
  await Bun.sleep(5)
  abort.abort()
  expect(await reading).toEqual(["one"])
})
