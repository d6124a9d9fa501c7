// The password checks' fair queues: two slots, one for any lane (the one that asked least lately
// first), one for lanes that asked little; a lane holding at most LANE_WAITING. A flood from some
// addresses keeps one slot busy, and a caller from another starts at once in the other.
import { expect, test } from "bun:test"
import { LANE_WAITING, Passwords, type Hasher } from "#lib/auth/passwords.ts"

/** A hasher whose checks finish when the test says, recording the order they started in. */
function gatedHasher() {
  const started: string[] = []
  const gates: (() => void)[] = []
  const hasher: Hasher = {
    hash: async () => "hash",
    verify: (password) =>
      new Promise((resolve) => {
        started.push(password)
        gates.push(() => resolve(password.endsWith("right")))
      }),
  }
  /** Lets the check under way finish; waits for the next to start. */
  const finish = async () => {
    gates.shift()?.()
    await Bun.sleep(0)
  }
  return { hasher, started, finish, pending: () => gates.length }
}

test("a flood's lanes take one slot, in turns; a lane that asked little starts at once in the other", async () => {
  const { hasher, started, finish, pending } = gatedHasher()
  const passwords = new Passwords(hasher, () => 0)
  const results: Promise<unknown>[] = []
  // Each flooding address asks ten times at once: what its lane holds is taken, the rest refused.
  for (let i = 0; i < 10; i++)
    for (let j = 0; j < 10; j++) results.push(passwords.check(`flood ${i}.${j}`, "hash", `10.0.0.${i}`).catch((e) => e))
  await Bun.sleep(0)
  // The first address was light when it began: both slots; once the flood is heavy, one slot only.
  expect(started).toEqual(["flood 0.0", "flood 0.1"])
  await finish()
  expect(started).toEqual(["flood 0.0", "flood 0.1"])
  await finish()
  expect(started.at(-1)).toBe("flood 1.0")
  const admin = passwords.check("admin right", "hash", "203.0.113.1")
  await Bun.sleep(0)
  expect(started.at(-1)).toBe("admin right")
  // The flood's check under way ends first, then the admin's.
  await finish()
  await finish()
  expect(await admin).toBe(true)
  // The flood's lanes take turns in their slot, one check each.
  for (let i = 0; i < 3; i++) await finish()
  expect(started.slice(3, 7).map((s) => s.split(".")[0])).toEqual(["admin right", "flood 2", "flood 3", "flood 4"])
  while (pending()) await finish()
  const refused = (await Promise.all(results)).filter((r) => r instanceof Error)
  expect(refused.length).toBe(results.length - (started.length - 1))
})

test("when nobody floods, two sign-ins run at once; a third waits", async () => {
  const { hasher, started, finish } = gatedHasher()
  const passwords = new Passwords(hasher, () => 0)
  const checks = ["a", "b", "c"].map((x, i) => passwords.check(`${x} right`, "hash", `10.0.1.${i}`))
  await Bun.sleep(0)
  expect(started).toEqual(["a right", "b right"])
  await finish()
  expect(started).toEqual(["a right", "b right", "c right"])
  await finish()
  await finish()
  expect(await Promise.all(checks)).toEqual([true, true, true])
})

test("a lane holds what runs and LANE_WAITING more; more at once are refused before any hash; other lanes are not", async () => {
  const { hasher, started, finish, pending } = gatedHasher()
  const passwords = new Passwords(hasher, () => 0)
  const lane = Array.from({ length: 2 + LANE_WAITING }, (_, i) => passwords.check(`a${i}`, "hash", "10.0.0.1"))
  await Bun.sleep(0)
  const refused = await passwords.check("a-more", "hash", "10.0.0.1").catch((e) => e)
  expect(refused).toMatchObject({ kind: "rate_limited", retryAfter: 1 })
  const other = passwords.check("b right", "hash", "10.0.0.2")
  while (pending()) await finish()
  expect(started).not.toContain("a-more")
  expect(await other).toBe(true)
  await Promise.all(lane)
})

test("a lane's demand is forgotten as time goes: a flood's address an hour later may use the light slot again", async () => {
  const { hasher, started, finish, pending } = gatedHasher()
  let now = 0
  const passwords = new Passwords(hasher, () => now)
  const flood = Array.from({ length: 30 }, (_, i) => passwords.check(`x${i}`, "hash", "10.0.0.9").catch((e) => e))
  await Bun.sleep(0)
  while (pending()) await finish()
  await Promise.all(flood)
  const busy = passwords.check("busy", "hash", "10.0.0.9")
  const held = passwords.check("held", "hash", "10.0.0.9")
  await Bun.sleep(0)
  expect(started.slice(-1)).toEqual(["busy"])
  now += 3600_000
  const again = passwords.check("again", "hash", "10.0.0.9")
  await Bun.sleep(0)
  expect(started.slice(-2)).toEqual(["busy", "held"])
  while (pending()) await finish()
  await Promise.all([busy, held, again])
})
