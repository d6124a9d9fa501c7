// The engine's disk usage (`system df`), shared: the engine runs one such count at a time and refuses
// a second ("a disk usage operation is already running"), and a count walks every layer and volume.
// Callers at the same moment share one request; its answer serves for `ttlMs` afterwards.
import type { Engine } from "./engine.ts"

export type DiskUsage = Awaited<ReturnType<Engine["df"]>>

export class DiskUsageCache {
  private pending: Promise<DiskUsage> | undefined
  private cached: { at: number; value: DiskUsage } | undefined

  constructor(
    private engine: Engine,
    private ttlMs = 30_000,
    private now: () => number = Date.now,
  ) {}

  get(): Promise<DiskUsage> {
    if (this.cached && this.now() - this.cached.at < this.ttlMs) return Promise.resolve(this.cached.value)
    this.pending ??= this.engine
      .df()
      .then((value) => {
        this.cached = { at: this.now(), value }
        return value
      })
      .finally(() => (this.pending = undefined))
    return this.pending
  }
}
