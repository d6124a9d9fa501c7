// The engine's disk usage (`system df`), shared: the engine runs one such count at a time and refuses
// a second ("a disk usage operation is already running"), and a count walks every layer and volume.
// Callers at the same moment share one request; its answer serves for `ttlMs` afterwards.
import type { Engine } from "./client.ts"
import { Reused } from "./reused.ts"

export type DiskUsage = Awaited<ReturnType<Engine["df"]>>

export class DiskUsageCache extends Reused<DiskUsage> {
  constructor(engine: Engine, ttlMs = 30_000, now: () => number = Date.now) {
    super(() => engine.df(), ttlMs, now)
  }
}
