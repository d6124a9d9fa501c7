// Metrics as the rest of the service sees them: observations that cost nothing while SVC_METRICS is
// off, and the Prometheus registry (lib/metrics/prometheus.ts, prom-client) loaded only when it is on.
import { sameSecret } from "../cluster/bearer.ts"
import { notFound, unauthenticated } from "../errors/errors.ts"
import type { NodeEntry } from "../cluster/nodes.ts"
import { outboundId } from "../cluster/tunnel.ts"
import type { Metrics } from "./types.ts"

/** The metrics token as a security requirement (optional: the routes are open when the service has no SVC_METRICS_TOKEN). */
export const metricsSecurity: Record<string, string[]>[] = [{ metricsToken: [] }, {}]

const off: Metrics = {
  observeRequest() {},
  observeProbe() {},
  render: () => Promise.reject(notFound("no such route")),
}

export async function createMetrics(enabled: boolean): Promise<Metrics> {
  return enabled ? new (await import("./prometheus.ts")).PrometheusMetrics() : off
}

/** /metrics and /metrics/targets exist only with SVC_METRICS=on, and want SVC_METRICS_TOKEN when it is set. */
export function requireMetricsAccess(
  deps: { config: { metrics: boolean; metricsToken?: string } },
  req: Request,
): void {
  if (!deps.config.metrics) throw notFound("no such route")
  const expected = deps.config.metricsToken
  if (!expected) return
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]?.trim()
  if (!given || !sameSecret(given, expected))
    throw unauthenticated("a valid Authorization: Bearer <SVC_METRICS_TOKEN> is required")
}

export interface TargetGroup {
  targets: string[]
  labels: Record<string, string>
}

/** The registry's nodes as Prometheus HTTP service discovery groups, one per node Prometheus can reach (not one behind NAT). */
export function targetGroups(nodes: NodeEntry[]): TargetGroup[] {
  return nodes
    .filter((n) => !outboundId(n.url))
    .map((n) => {
      const url = new URL(n.url)
      const prefix = url.pathname.replace(/\/+$/, "")
      return {
        targets: [url.host],
        labels: {
          node: n.name,
          __scheme__: url.protocol.replace(":", ""),
          ...(prefix ? { __metrics_path__: `${prefix}/metrics` } : {}),
        },
      }
    })
}
