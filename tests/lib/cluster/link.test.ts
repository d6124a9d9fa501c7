import { expect, test } from "bun:test"
import { backoff } from "#lib/cluster/link.ts"

test("reconnect delays: full jitter under an exponential step capped at 30 s", () => {
  expect([0, 1, 2, 3].map((n) => backoff(n, () => 1))).toEqual([500, 1000, 2000, 4000])
  expect(backoff(20, () => 1)).toBe(30_000)
  expect(backoff(5, () => 0)).toBe(0)
  expect(backoff(5, () => 0.5)).toBe(8000)
})
