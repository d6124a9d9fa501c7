import { defineHandler } from "#lib/service/handler.ts"
import { requireMetricsAccess } from "#lib/metrics/metrics.ts"
import { metricsSecurity } from "#lib/metrics/schemas.ts"

export const detail = { operationId: "getMetrics", summary: "Prometheus metrics (only with SVC_METRICS=on; bearer SVC_METRICS_TOKEN when set)", tags: ["metrics"], security: metricsSecurity }

export const response = { contentType: "text/plain", description: "Prometheus text exposition format" }

export default defineHandler(async ({ request, ctx }) => {
  requireMetricsAccess(ctx, request)
  const { contentType, text } = await ctx.metrics.render(ctx)
  return new Response(text, { headers: { "content-type": contentType } })
})
