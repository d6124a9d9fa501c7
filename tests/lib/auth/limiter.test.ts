import { expect, test } from "bun:test"
import { AttemptLimiter, FORGET_MS, FREE_ATTEMPTS, MAX_WAIT_MS } from "#lib/auth/limiter.ts"

const retryAfter = (fn: () => void): number | undefined => {
  try {
    fn()
  } catch (err) {
    return Number((err as { extras: { headers: Record<string, string> } }).extras.headers["retry-after"])
  }
}

test("free attempts, then waits that double up to 15 minutes; a count is forgotten a day after its last attempt", () => {
  let now = 0
  const limiter = new AttemptLimiter(() => now)
  for (let i = 0; i < FREE_ATTEMPTS; i++) expect(retryAfter(() => limiter.begin(["user:a"]))).toBeUndefined()
  const waits: number[] = []
  for (let i = 0; i < 14; i++) {
    const wait = retryAfter(() => limiter.begin(["user:a"]))!
    waits.push(wait)
    now += wait * 1000
    limiter.begin(["user:a"])
  }
  expect(waits.slice(0, 5)).toEqual([1, 2, 4, 8, 16])
  expect(Math.max(...waits)).toBe(MAX_WAIT_MS / 1000)
  now += FORGET_MS
  for (let i = 0; i < FREE_ATTEMPTS; i++) expect(retryAfter(() => limiter.begin(["user:a"]))).toBeUndefined()
})

test("a success clears the user's count and takes its attempt back from the peer's", () => {
  const limiter = new AttemptLimiter(() => 0)
  for (let i = 0; i < 100; i++) {
    limiter.begin([`user:u${i}`, "peer:office"])
    limiter.succeeded(`user:u${i}`, "peer:office")
  }
  expect(retryAfter(() => limiter.begin(["user:u1", "peer:office"]))).toBeUndefined()
  for (let i = 1; i < FREE_ATTEMPTS; i++) limiter.begin([`user:x${i}`, "peer:office"])
  expect(retryAfter(() => limiter.begin(["user:y", "peer:office"]))).toBe(1)
})
