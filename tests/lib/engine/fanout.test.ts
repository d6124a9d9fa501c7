import { expect, test } from "bun:test"
import { Fanout } from "#lib/engine/fanout.ts"

test("every reader gets every value published after it subscribed, in order", async () => {
  const f = new Fanout<number>(10)
  const stop = new AbortController()
  const a = f.subscribe(stop.signal)
  const b = f.subscribe(stop.signal)
  const firstA = a.next()
  const firstB = b.next()
  expect(f.size).toBe(2)
  f.publish(1)
  f.publish(2)
  expect([(await firstA).value, (await a.next()).value, (await firstB).value, (await b.next()).value]).toEqual([
    1, 2, 1, 2,
  ])
  stop.abort()
  expect((await a.next()).done).toBe(true)
  expect((await b.next()).done).toBe(true)
  expect(f.size).toBe(0)
})

test("a reader that falls behind the limit is dropped; the others go on", async () => {
  const f = new Fanout<number>(3)
  const stop = new AbortController()
  const slow = f.subscribe(stop.signal)
  const fast = f.subscribe(stop.signal)
  const pending = [slow.next(), fast.next()]
  for (let i = 1; i <= 5; i++) {
    f.publish(i)
    if (i === 1) await pending[1]
    else expect((await fast.next()).value).toBe(i)
  }
  expect((await pending[0]!).value).toBe(1)
  const rest: number[] = []
  for await (const v of slow) rest.push(v)
  expect(rest.length).toBeLessThan(4)
  expect(f.size).toBe(1)
  stop.abort()
  expect((await fast.next()).done).toBe(true)
})
