import { defineHandler } from "../lib/handler.ts"
import { requireMetricsAccess } from "../lib/metrics.ts"
import { prometheusContentType } from "prom-client"

export const detail = { summary: "Prometheus metrics (only with SVC_METRICS=on; bearer SVC_METRICS_TOKEN when set)", tags: ["metrics"] }

export default defineHandler(async ({ request, ctx }) => {
  requireMetricsAccess(ctx, request)
  return new Response(await ctx.metrics.render(ctx), { headers: { "content-type": prometheusContentType } })
})
