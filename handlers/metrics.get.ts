import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "viewer",
  access: "metrics",
  detail: {
    operationId: "getMetrics",
    summary: "Prometheus metrics (only with SVC_METRICS=on; bearer SVC_METRICS_TOKEN when set)",
    tags: ["metrics"],
  },
  response: { contentType: "text/plain", description: "Prometheus text exposition format" },
  handler: async ({ ctx }) => {
    const { contentType, text } = await ctx.metrics.render(ctx)
    return new Response(text, { headers: { "content-type": contentType } })
  },
})
