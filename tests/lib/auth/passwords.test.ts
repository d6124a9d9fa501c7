// The password checks' fair queues: one check at a time, the next taken from the lane served longest
// ago, a lane holding at most LANE_WAITING, so a flood from some addresses never holds back a caller
// from another by more than the check under way.
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

test("one check at a time; a lane that asked little goes before the lanes a flood keeps full, which take turns", async () => {
  const { hasher, started, finish, pending } = gatedHasher()
  const passwords = new Passwords(hasher, () => 0)
  const results: Promise<unknown>[] = []
  for (let i = 0; i < 10; i++)
    for (let j = 0; j <= LANE_WAITING; j++)
      results.push(passwords.check(`flood ${i}.${j}`, "hash", `10.0.0.${i}`).catch((e) => e))
  await Bun.sleep(0)
  expect(started).toEqual(["flood 0.0"])
  const admin = passwords.check("admin right", "hash", "203.0.113.1")
  await finish()
  expect(started.at(-1)).toBe("admin right")
  await finish()
  expect(await admin).toBe(true)
  // Then the flood's lanes take turns, one check each.
  for (let i = 0; i < 4; i++) await finish()
  expect(started.slice(2, 6).map((s) => s.split(".")[0])).toEqual(["flood 1", "flood 2", "flood 3", "flood 4"])
  while (pending()) await finish()
  // A lane holds one check under way and LANE_WAITING more: the rest of the flood was refused unchecked.
  const refused = (await Promise.all(results)).filter((r) => r instanceof Error)
  expect(started.length).toBe(1 + 10 * LANE_WAITING + 1)
  expect(refused.length).toBe(results.length - 10 * LANE_WAITING - 1)
})

test("a lane holding LANE_WAITING checks refuses more at once, before any hash; other lanes are not refused", async () => {
  const { hasher, started, finish } = gatedHasher()
  const passwords = new Passwords(hasher, () => 0)
  const lane = Array.from({ length: 1 + LANE_WAITING }, (_, i) => passwords.check(`a${i}`, "hash", "10.0.0.1"))
  await Bun.sleep(0)
  const refused = await passwords.check("a-more", "hash", "10.0.0.1").catch((e) => e)
  expect(refused).toMatchObject({ kind: "rate_limited", retryAfter: 1 })
  expect(started).not.toContain("a-more")
  const other = passwords.check("b right", "hash", "10.0.0.2")
  for (let i = 0; i < 1 + LANE_WAITING + 1; i++) await finish()
  expect(await other).toBe(true)
  await Promise.all(lane)
})

test("a lane's demand is forgotten as time goes: a flood's address an hour later asks as little as anyone", async () => {
  const { hasher, started, finish } = gatedHasher()
  let now = 0
  const passwords = new Passwords(hasher, () => now)
  const flood = Array.from({ length: 30 }, (_, i) => passwords.check(`x${i}`, "hash", "10.0.0.9").catch((e) => e))
  while (started.length < 1 + 2) await finish()
  await finish()
  await Promise.all(flood)
  now += 3600_000
  const blocker = passwords.check("blocker", "hash", "10.0.0.1")
  const first = passwords.check("again", "hash", "10.0.0.9")
  const second = passwords.check("new", "hash", "10.0.0.2")
  await Bun.sleep(0)
  await finish()
  // The flood's address asked once more than the new one: the new one goes first, but it is not held back.
  expect(started.slice(-2)).toEqual(["blocker", "new"])
  await finish()
  expect(started.at(-1)).toBe("again")
  await finish()
  await Promise.all([blocker, first, second])
})
