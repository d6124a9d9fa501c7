// The response schemas of the metrics routes, and the metrics token as a security requirement
// (optional: the routes are open when the service has no SVC_METRICS_TOKEN).
import * as v from "valibot"

export const metricsSecurity: Record<string, string[]>[] = [{ metricsToken: [] }, {}]

export const targetGroupSchema = v.object({ targets: v.array(v.string()), labels: v.record(v.string(), v.string()) })
