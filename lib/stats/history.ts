// Owns the in-memory history of samples: one fixed-size ring of typed arrays per container and per
// stack, covering the last hour at the sampling interval, and a store that keeps the total within a
// byte budget whatever the number of containers. Nothing of it is ever written to disk.

/** The series a ring keeps, in this order. CPU is kept as `docker stats` shows it (100 = one core). */
export const SERIES = ["cpu", "mem", "rx", "tx", "blkRead", "blkWrite", "pids"] as const
export type Series = (typeof SERIES)[number]

/**
 * Bytes one slot takes: the time as a Float64 (8) and each series as a Float32 (4 × 7). A Float32
 * keeps 24 bits of mantissa: a memory figure of 1 GiB is exact to 64 bytes, enough for a chart (the
 * latest sample is kept at full precision beside the ring).
 */
export const SLOT_BYTES = 8 + 4 * SERIES.length

/** The last hour: 720 slots at the default 5 s interval, 25,920 bytes per container. */
export const WINDOW_MS = 3_600_000

/** What every ring together may take: at the default interval, 1,294 containers and stacks. */
export const HISTORY_BUDGET_BYTES = 32 * 1024 * 1024

export const slotsFor = (intervalSeconds: number) => Math.max(2, Math.ceil(WINDOW_MS / (intervalSeconds * 1000)))

export type Columns<S extends string = Series> = { time: number[] } & Record<S, (number | null)[]>

/**
 * A fixed-size ring of samples: a time column (Float64) and one Float32 column per series, all on one
 * buffer. A container's and a stack's rings keep SERIES; the host's keeps series of its own.
 */
export class Ring<S extends string = Series> {
  readonly time: Float64Array
  readonly columns: Float32Array[]
  private next = 0
  private count = 0

  constructor(
    readonly capacity: number,
    readonly series: readonly S[] = SERIES as unknown as readonly S[],
  ) {
    const buffer = new ArrayBuffer(capacity * (8 + 4 * series.length))
    this.time = new Float64Array(buffer, 0, capacity)
    this.columns = series.map((_, i) => new Float32Array(buffer, capacity * 8 + i * capacity * 4, capacity))
    // Written in full now (empty slots are NaN): the ring's memory is resident from its first sample,
    // so what a full hour costs shows at once (and bench/stats.ts measures it without waiting an hour).
    for (const c of this.columns) c.fill(NaN)
  }

  get length(): number {
    return this.count
  }

  get bytes(): number {
    return this.time.buffer.byteLength
  }

  /** Time of the newest slot, 0 when empty. */
  get lastTime(): number {
    return this.count ? this.time[(this.next - 1 + this.capacity) % this.capacity]! : 0
  }

  /** Adds a slot, overwriting the oldest when full; a null value is kept as NaN. */
  push(time: number, values: Record<S, number | null>): void {
    const i = this.next
    this.time[i] = time
    this.series.forEach((s, k) => (this.columns[k]![i] = values[s] ?? NaN))
    this.next = (i + 1) % this.capacity
    this.count = Math.min(this.count + 1, this.capacity)
  }

  /**
   * The slots newer than `since`, oldest first, as columns (NaN read back as null). With `points`,
   * runs of consecutive slots are averaged down to at most that many (a sparkline needs 60, not 720).
   */
  read(since = 0, points?: number): Columns<S> {
    const start = (this.next - this.count + this.capacity) % this.capacity
    const idx: number[] = []
    for (let k = 0; k < this.count; k++) {
      const i = (start + k) % this.capacity
      if (this.time[i]! > since) idx.push(i)
    }
    const groups: number[][] = []
    const size = points && points > 0 && idx.length > points ? Math.ceil(idx.length / points) : 1
    // Groups are aligned to the newest slot, so the last point always stands for the latest sample.
    for (let end = idx.length; end > 0; end -= size) groups.unshift(idx.slice(Math.max(0, end - size), end))
    const out: Record<string, (number | null)[]> = { time: groups.map((g) => this.time[g.at(-1)!]!) }
    this.series.forEach((s, k) => {
      const col = this.columns[k]!
      out[s] = groups.map((g) => {
        let sum = 0
        let n = 0
        for (const i of g) {
          const v = col[i]!
          if (!Number.isNaN(v)) (sum += v), n++
        }
        return n ? sum / n : null
      })
    })
    return out as Columns<S>
  }
}

/**
 * Rings by key ("c:<container id>", "s:<stack>"), each `slots` long. A new key past the budget takes
 * the ring whose newest slot is the oldest, unless that one is still being written (newer than two
 * intervals): then the new key gets no history and `refused` counts it.
 */
export class HistoryStore {
  private rings = new Map<string, Ring>()
  readonly maxRings: number
  refused = 0

  constructor(
    readonly slots: number,
    readonly intervalMs: number,
    budgetBytes = HISTORY_BUDGET_BYTES,
  ) {
    this.maxRings = Math.max(1, Math.floor(budgetBytes / (slots * SLOT_BYTES)))
  }

  get size(): number {
    return this.rings.size
  }

  get bytes(): number {
    let n = 0
    for (const r of this.rings.values()) n += r.bytes
    return n
  }

  get(key: string): Ring | undefined {
    return this.rings.get(key)
  }

  push(key: string, time: number, values: Record<Series, number | null>): void {
    let ring = this.rings.get(key)
    if (!ring) {
      if (this.rings.size >= this.maxRings && !this.evict(time)) {
        this.refused++
        return
      }
      ring = new Ring(this.slots)
      this.rings.set(key, ring)
    }
    ring.push(time, values)
  }

  /** Drops the rings whose newest slot left the window. */
  expire(now: number): void {
    for (const [key, ring] of this.rings) if (ring.lastTime <= now - WINDOW_MS) this.rings.delete(key)
  }

  private evict(now: number): boolean {
    let oldest: [string, number] | undefined
    for (const [key, ring] of this.rings) if (!oldest || ring.lastTime < oldest[1]) oldest = [key, ring.lastTime]
    if (!oldest || oldest[1] > now - 2 * this.intervalMs) return false
    this.rings.delete(oldest[0])
    return true
  }
}
