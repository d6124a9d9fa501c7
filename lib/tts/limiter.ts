// Bounds concurrent syntheses: `limit` run at once, up to `queue` more wait their turn in order, and
// a request beyond that is refused with 503 at once, so a burst cannot exhaust memory.
import { HttpError } from "../http-error.ts"

export class Limiter {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(
    readonly limit: number,
    readonly queue: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.queue) throw new HttpError(503, "tts_busy", `${this.running} syntheses are running and ${this.waiting.length} waiting; try again shortly`)
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    try {
      return await task()
    } finally {
      const next = this.waiting.shift()
      if (next) next() // the slot passes straight to the next in line
      else this.running--
    }
  }
}
