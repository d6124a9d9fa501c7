// What the rest of the service sees of metrics (lib/metrics/metrics.ts), and what a scrape reads
// (lib/metrics/prometheus.ts): the types both share.
import type { NodeRegistry } from "../cluster/nodes.ts"
import type { Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import type { ScanQueue } from "../images/scan-queue.ts"
import type { ImageUpdates } from "../images/update-checks.ts"
import type { Stacks } from "../stacks/store.ts"
import type { StatsSampler } from "../stats/sampler.ts"

export interface Exposition {
  contentType: string
  text: string
}

/** What a scrape reads, now: the engine, the stores and the counts kept elsewhere. */
export interface Scraped {
  config: { metricsContainers: boolean }
  engine: Engine
  events: EventBus
  scans: ScanQueue
  imageUpdates: ImageUpdates
  stacks: Stacks
  nodes: NodeRegistry
  stats: StatsSampler
  guard: { counts: Record<string, number> }
  notifier: { counts: Record<string, number> }
  /** The alerts (lib/alerts/alerts.ts), when the service made them. */
  alerts?: {
    metrics(): {
      alerts: { rule: string; channel: string; result: string; n: number }[]
      channels: { channel: string; failing: number; pending: number }[]
      active: { rule: string; n: number }[]
    }
  }
  /** Each stack's backups into each repository since the service started (lib/verbs/backup-verbs.ts). */
  backups: {
    lastRuns(): {
      repository: string
      stack: string
      last_success: number | null
      size: number | null
      failures: number
    }[]
  }
}

export interface Metrics {
  observeRequest(route: string, method: string, status: number, seconds: number): void
  observeProbe(node: string, status: string, seconds: number): void
  /** The exposition text, gauges read now. */
  render(from: Scraped): Promise<Exposition>
}
