import { defineHandler } from "#lib/http/handler.ts"
import { requireMetricsAccess, targetGroups } from "#lib/metrics/metrics.ts"

export const detail = { summary: "The registry's nodes as Prometheus HTTP service discovery JSON, each group labelled node", tags: ["metrics"] }

export default defineHandler(async ({ request, ctx }) => {
  requireMetricsAccess(ctx, request)
  return targetGroups(await ctx.nodes.list())
})
