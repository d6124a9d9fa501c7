import { defineHandler } from "#lib/service/handler.ts"

export const detail = {
  operationId: "getMetrics",
  summary: "Prometheus metrics (only with SVC_METRICS=on; bearer SVC_METRICS_TOKEN when set)",
  tags: ["metrics"],
}

export const response = { contentType: "text/plain", description: "Prometheus text exposition format" }

export const access = "metrics"

export const role = "viewer"

export default defineHandler(async ({ ctx }) => {
  const { contentType, text } = await ctx.metrics.render(ctx)
  return new Response(text, { headers: { "content-type": contentType } })
})
