// Sign-in attempts, counted per key: a few failures are free, then each attempt waits twice as long
// as the one before (1 s, 2 s, ... up to 15 minutes, from the moment the failure was judged). An
// attempt is counted when it begins, so a burst of them at once is refused before any password is
// checked, and one made while its key waits is refused without counting: nobody lengthens a wait but
// by trying after it ended. A count is forgotten
// a day after its last attempt; the table is bounded, the oldest entries giving way.
//
// A sign-in is counted under two keys (`signInLimits`): the user name from the caller's address (5
// free), and the address alone (20 free, for one trying many names). Both are the caller's own: the
// failures of a stranger elsewhere never make a user wait, so nobody can lock another person out
// from another address, and no key has a wait that a third party elsewhere can extend. An IPv6
// caller's address is its /64, which one party holds whole. A second factor's failures are counted
// under the same keys.
import { rateLimited } from "../errors/errors.ts"

export const PAIR_FREE = 5
export const ADDRESS_FREE = 20
export const MAX_WAIT_MS = 15 * 60_000
export const FORGET_MS = 24 * 3600_000
const MAX_ENTRIES = 10_000

export interface Limit {
  key: string
  /** Failures allowed before each attempt waits. */
  free: number
  /** What a success does to the count: starts it again, or takes this attempt back. */
  onSuccess: "clear" | "take back"
}

interface Entry {
  failures: number
  last: number
  /** No attempt before this time (milliseconds). */
  until: number
  free: number
}

/** IPv6 written out in its eight groups (undefined for anything else). */
function ipv6Groups(address: string): string[] | undefined {
  if (!address.includes(":")) return undefined
  const [head = "", tail, more] = address.split("::")
  if (more !== undefined) return undefined
  const left = head ? head.split(":") : []
  const right = tail ? tail.split(":") : []
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
  return groups.length === 8 && groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? groups : undefined
}

/** The part of an address one party holds: an IPv4 address (also IPv4-mapped IPv6), an IPv6 /64. */
export function addressKey(address: string | undefined): string {
  if (!address) return "-"
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  const groups = ipv6Groups(address.replace(/%.*$/, ""))
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => Number.parseInt(g, 16).toString(16))
        .join(":")}::/64`
    : address
}

/** The keys a sign-in (or a second factor) of `user` from `address` is counted under. */
export function signInLimits(user: string, address: string | undefined): Limit[] {
  const from = addressKey(address)
  return [
    { key: `user:${user.toLowerCase()}@${from}`, free: PAIR_FREE, onSuccess: "clear" },
    { key: `address:${from}`, free: ADDRESS_FREE, onSuccess: "take back" },
  ]
}

export class AttemptLimiter {
  private entries = new Map<string, Entry>()

  constructor(private now: () => number) {}

  private wait(e: Pick<Entry, "failures" | "free">): number {
    return e.failures < e.free ? 0 : Math.min(1000 * 2 ** (e.failures - e.free), MAX_WAIT_MS)
  }

  /** Refuses (429 with Retry-After) while any of `limits` waits; else counts the attempt under each. */
  begin(limits: Limit[]): void {
    const now = this.now()
    const until = Math.max(0, ...limits.map((l) => this.entries.get(l.key)?.until ?? 0))
    if (until > now) {
      const seconds = Math.ceil((until - now) / 1000)
      throw rateLimited(`too many sign-in attempts; retry in ${seconds} s`, "too_many_attempts", {
        retryAfter: seconds,
      })
    }
    for (const { key, free } of limits) {
      const known = this.entries.get(key)
      const e = known && now - known.last < FORGET_MS ? known : { failures: 0, last: now, until: 0, free }
      this.entries.delete(key)
      e.failures++
      e.last = now
      e.until = now + this.wait(e)
      this.entries.set(key, e)
    }
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break
      this.entries.delete(oldest)
    }
  }

  /**
   * An attempt that failed, once judged: its wait runs from now (a check that took longer than the
   * wait does not leave the next attempt free).
   */
  failed(limits: Limit[]): void {
    const now = this.now()
    for (const { key } of limits) {
      const e = this.entries.get(key)
      if (e) e.until = Math.max(e.until, now + this.wait(e))
    }
  }

  /** An attempt that was never judged (refused before its check): taken back from every key. */
  takeBack(limits: Limit[]): void {
    for (const { key } of limits) {
      const e = this.entries.get(key)
      if (!e) continue
      e.failures = Math.max(0, e.failures - 1)
      e.until = e.last + this.wait(e)
    }
  }

  /** A success: each key's count starts again or takes the attempt back, as its limit says. */
  succeeded(limits: Limit[]): void {
    for (const { key, onSuccess } of limits) {
      const e = this.entries.get(key)
      if (!e) continue
      if (onSuccess === "clear") this.entries.delete(key)
      else this.takeBack([{ key, free: e.free, onSuccess }])
    }
  }
}
