// Sign-in attempts, counted per user name and per peer address: a few are free, then each one waits
// twice as long as the one before (up to 15 minutes). An attempt is counted when it begins, so a
// burst of them at once is refused before any password is checked; one that succeeds clears its
// user's count and is taken back from its peer's. A count is forgotten a day after its last attempt.
// The table is bounded: past its size the oldest entries give way.
import { HttpError } from "../http/http-error.ts"

export const FREE_ATTEMPTS = 5
export const MAX_WAIT_MS = 15 * 60_000
export const FORGET_MS = 24 * 3600_000
const MAX_ENTRIES = 10_000

interface Entry {
  failures: number
  last: number
  /** No attempt before this time (milliseconds). */
  until: number
}

export class AttemptLimiter {
  private entries = new Map<string, Entry>()

  constructor(private now: () => number) {}

  private wait(failures: number): number {
    return failures < FREE_ATTEMPTS ? 0 : Math.min(1000 * 2 ** (failures - FREE_ATTEMPTS), MAX_WAIT_MS)
  }

  /** Throws 429 with Retry-After while any of `keys` must wait; else counts the attempt for each. */
  begin(keys: string[]): void {
    const now = this.now()
    const until = Math.max(0, ...keys.map((k) => this.entries.get(k)?.until ?? 0))
    if (until > now) {
      const seconds = Math.ceil((until - now) / 1000)
      throw new HttpError(429, "too_many_attempts", `too many sign-in attempts; retry in ${seconds} s`, {
        headers: { "retry-after": String(seconds) },
      })
    }
    for (const key of keys) {
      const known = this.entries.get(key)
      const e = known && now - known.last < FORGET_MS ? known : { failures: 0, last: now, until: 0 }
      this.entries.delete(key)
      e.failures++
      e.last = now
      e.until = now + this.wait(e.failures)
      this.entries.set(key, e)
    }
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break
      this.entries.delete(oldest)
    }
  }

  /** A success: the user's count starts again, and the peer's attempt is taken back. */
  succeeded(user: string, peer: string): void {
    this.entries.delete(user)
    const e = this.entries.get(peer)
    if (!e) return
    e.failures--
    e.until = e.last + this.wait(e.failures)
  }
}
