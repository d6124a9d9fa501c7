// Metrics as the rest of the service sees them: observations that cost nothing while SVC_METRICS is
// off, and the Prometheus registry (lib/metrics/prometheus.ts, prom-client) loaded only when it is on.
import { sameSecret } from "../cluster/bearer.ts"
import type { Config } from "../service/config.ts"
import { HttpError } from "../http/http-error.ts"
import type { NodeEntry, NodeRegistry } from "../cluster/nodes.ts"
import type { Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import type { ScanQueue } from "../images/scan-queue.ts"
import type { Updates } from "../images/update-checks.ts"
import type { Stacks } from "../stacks/store.ts"
import type { StatsSampler } from "../stats/sampler.ts"

export interface Exposition {
  contentType: string
  text: string
}

/** What a scrape reads, now: the engine, the stores and the counts kept elsewhere. */
export interface Scraped {
  config: Pick<Config, "metricsContainers">
  engine: Engine
  events: EventBus
  scans: ScanQueue
  updates: Updates
  stacks: Stacks
  nodes: NodeRegistry
  stats: StatsSampler
  guard: { counts: Record<string, number> }
  notifier: { counts: Record<string, number> }
}

export interface Metrics {
  observeRequest(route: string, method: string, status: number, seconds: number): void
  observeProbe(node: string, status: string, seconds: number): void
  /** The exposition text, gauges read now. */
  render(from: Scraped): Promise<Exposition>
}

const off: Metrics = {
  observeRequest() {},
  observeProbe() {},
  render: () => Promise.reject(new HttpError(404, "not_found", "no such route")),
}

export async function createMetrics(enabled: boolean): Promise<Metrics> {
  return enabled ? new (await import("./prometheus.ts")).PrometheusMetrics() : off
}

/** /metrics and /metrics/targets exist only with SVC_METRICS=on, and want SVC_METRICS_TOKEN when it is set. */
export function requireMetricsAccess(deps: { config: Pick<Config, "metrics" | "metricsToken"> }, req: Request): void {
  if (!deps.config.metrics) throw new HttpError(404, "not_found", "no such route")
  const expected = deps.config.metricsToken
  if (!expected) return
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]?.trim()
  if (!given || !sameSecret(given, expected)) throw new HttpError(401, "unauthorized", "a valid Authorization: Bearer <SVC_METRICS_TOKEN> is required")
}

export interface TargetGroup {
  targets: string[]
  labels: Record<string, string>
}

/** The registry's nodes as Prometheus HTTP service discovery groups, one per node. */
export function targetGroups(nodes: NodeEntry[]): TargetGroup[] {
  return nodes.map((n) => {
    const url = new URL(n.url)
    const prefix = url.pathname.replace(/\/+$/, "")
    return {
      targets: [url.host],
      labels: { node: n.name, __scheme__: url.protocol.replace(":", ""), ...(prefix ? { __metrics_path__: `${prefix}/metrics` } : {}) },
    }
  })
}
