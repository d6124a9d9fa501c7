import { expect, test } from "bun:test"
import {
  ADDRESS_FREE,
  addressKey,
  AttemptLimiter,
  FORGET_MS,
  MAX_WAIT_MS,
  PAIR_FREE,
  signInLimits,
} from "#lib/auth/limiter.ts"

const retryAfter = (fn: () => void): number | undefined => {
  try {
    fn()
  } catch (err) {
    return (err as { retryAfter: number }).retryAfter
  }
}

test("free attempts, then waits that double up to 15 minutes; a count is forgotten a day after its last attempt", () => {
  let now = 0
  const limiter = new AttemptLimiter(() => now)
  const limits = signInLimits("ann", "198.51.100.7")
  for (let i = 0; i < PAIR_FREE; i++) expect(retryAfter(() => limiter.begin(limits))).toBeUndefined()
  const waits: number[] = []
  for (let i = 0; i < 14; i++) {
    const wait = retryAfter(() => limiter.begin(limits))!
    waits.push(wait)
    now += wait * 1000
    limiter.begin(limits)
  }
  expect(waits.slice(0, 5)).toEqual([1, 2, 4, 8, 16])
  expect(Math.max(...waits)).toBe(MAX_WAIT_MS / 1000)
  now += FORGET_MS
  for (let i = 0; i < PAIR_FREE; i++) expect(retryAfter(() => limiter.begin(limits))).toBeUndefined()
})

test("a stranger's failures for a user make only the stranger's address wait: the user signs in from their own", () => {
  const now = 0
  const limiter = new AttemptLimiter(() => now)
  for (let i = 0; i < PAIR_FREE; i++) limiter.begin(signInLimits("ann", "198.51.100.7"))
  expect(retryAfter(() => limiter.begin(signInLimits("ann", "198.51.100.7")))).toBe(1)
  expect(retryAfter(() => limiter.begin(signInLimits("Ann", "203.0.113.5")))).toBeUndefined()
})

test("no one lengthens a wait but by trying after it ended: attempts during a wait are not counted", () => {
  let now = 0
  const limiter = new AttemptLimiter(() => now)
  const limits = signInLimits("ann", "198.51.100.7")
  for (let i = 0; i < PAIR_FREE; i++) limiter.begin(limits)
  for (let i = 0; i < 1000; i++) expect(retryAfter(() => limiter.begin(limits))).toBe(1)
  now += 1000
  expect(retryAfter(() => limiter.begin(limits))).toBeUndefined()
  expect(retryAfter(() => limiter.begin(limits))).toBe(2)
})

test("one address trying many user names waits after ADDRESS_FREE failures; a success takes its attempt back", () => {
  const limiter = new AttemptLimiter(() => 0)
  for (let i = 0; i < 100; i++) {
    const limits = signInLimits(`u${i}`, "10.1.2.3")
    limiter.begin(limits)
    limiter.succeeded(limits)
  }
  expect(retryAfter(() => limiter.begin(signInLimits("u1", "10.1.2.3")))).toBeUndefined()
  for (let i = 1; i < ADDRESS_FREE; i++) limiter.begin(signInLimits(`x${i}`, "10.1.2.3"))
  expect(retryAfter(() => limiter.begin(signInLimits("y", "10.1.2.3")))).toBe(1)
  expect(retryAfter(() => limiter.begin(signInLimits("y", "10.1.2.4")))).toBeUndefined()
})

test("an attempt never judged is taken back from every key", () => {
  const limiter = new AttemptLimiter(() => 0)
  const limits = signInLimits("ann", "10.0.0.1")
  for (let i = 0; i < 50; i++) {
    limiter.begin(limits)
    limiter.takeBack(limits)
  }
  expect(retryAfter(() => limiter.begin(limits))).toBeUndefined()
})

test("an address is keyed as one party holds it: IPv4 whole, IPv4-mapped as IPv4, IPv6 by its /64", () => {
  expect(addressKey("198.51.100.7")).toBe("198.51.100.7")
  expect(addressKey("::ffff:198.51.100.7")).toBe("198.51.100.7")
  expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64")
  expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64")
  expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64")
  expect(addressKey("::1")).toBe("0:0:0:0::/64")
  expect(addressKey(undefined)).toBe("-")
  const limiter = new AttemptLimiter(() => 0)
  for (let i = 0; i < ADDRESS_FREE; i++) limiter.begin(signInLimits(`u${i}`, `2001:db8:1:2::${i.toString(16)}`))
  expect(retryAfter(() => limiter.begin(signInLimits("v", "2001:db8:1:2:ffff::1")))).toBe(1)
  expect(retryAfter(() => limiter.begin(signInLimits("v", "2001:db8:1:3::1")))).toBeUndefined()
})

test("a failure's wait runs from when it was judged: a check slower than the wait leaves the next attempt waiting", () => {
  let now = 0
  const limiter = new AttemptLimiter(() => now)
  const limits = signInLimits("ann", "198.51.100.7")
  for (let i = 0; i < PAIR_FREE - 1; i++) limiter.begin(limits)
  limiter.begin(limits)
  now += 3000
  limiter.failed(limits)
  now += 500
  expect(retryAfter(() => limiter.begin(limits))).toBe(1)
})
