// Bounds concurrent syntheses: `limit` run at once, up to `queue` more wait their turn in order, and
// a request beyond that is refused as unavailable, `tts_busy`, at once (with a retry delay estimated
// from the recent syntheses), so a burst cannot exhaust memory.
import { unavailable } from "../errors/errors.ts"

export class Limiter {
  private running = 0
  private readonly waiting: (() => void)[] = []
  /** Moving average of how long a task takes, in ms. */
  private average = 2000

  constructor(
    readonly limit: number,
    readonly queue: number,
  ) {}

  /** Seconds until a place is likely free: the line ahead, worked off `limit` at a time. */
  retryAfter(): number {
    return Math.max(1, Math.ceil(((this.waiting.length / this.limit + 1) * this.average) / 1000))
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.queue)
        throw unavailable(
          `${this.running} syntheses are running and ${this.waiting.length} waiting; try again shortly`,
          "tts_busy",
          { retryAfter: this.retryAfter() },
        )
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    const started = performance.now()
    try {
      return await task()
    } finally {
      this.average = 0.8 * this.average + 0.2 * (performance.now() - started)
      const next = this.waiting.shift()
      if (next)
        next() // the slot passes straight to the next in line
      else this.running--
    }
  }
}
