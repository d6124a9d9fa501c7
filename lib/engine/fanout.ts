// One value stream to many readers, each with a bounded queue of its own: the event bus and the
// stats sampler hand their news to their SSE subscribers through it.

interface Reader<T> {
  push(value: T): void
}

export class Fanout<T> {
  private readers = new Set<Reader<T>>()

  /** `limit`: how far a reader may fall behind before it is dropped (its stream ends). */
  constructor(private readonly limit: number) {}

  get size(): number {
    return this.readers.size
  }

  publish(value: T): void {
    for (const r of this.readers) r.push(value)
  }

  /** Values published from now on, until the signal aborts or the reader falls `limit` behind. */
  async *subscribe(signal: AbortSignal): AsyncGenerator<T> {
    const queue: T[] = []
    let wake: (() => void) | undefined
    let overflowed = false
    const limit = this.limit
    const reader: Reader<T> = {
      push(value) {
        if (queue.length >= limit) overflowed = true
        else queue.push(value)
        wake?.()
      },
    }
    this.readers.add(reader)
    // The abort wakes the waiting reader. (Racing each wait against one long-lived "aborted" promise
    // would leave a reaction on it per value, held until the reader leaves.)
    const onAbort = () => wake?.()
    signal.addEventListener("abort", onAbort, { once: true })
    try {
      while (!signal.aborted && !overflowed) {
        while (queue.length) yield queue.shift()!
        if (signal.aborted || overflowed) break
        await new Promise<void>((r) => (wake = r))
        wake = undefined
      }
    } finally {
      signal.removeEventListener("abort", onAbort)
      this.readers.delete(reader)
    }
  }
}
