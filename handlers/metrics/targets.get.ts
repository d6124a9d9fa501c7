import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { requireMetricsAccess, targetGroups } from "#lib/metrics/metrics.ts"
import { metricsSecurity, targetGroupSchema } from "#lib/metrics/schemas.ts"

export const detail = { operationId: "getMetricsTargets", summary: "The registry's nodes as Prometheus HTTP service discovery JSON, each group labelled node", tags: ["metrics"], security: metricsSecurity }

export const response = v.array(targetGroupSchema)

export default defineHandler(async ({ request, ctx }) => {
  requireMetricsAccess(ctx, request)
  return targetGroups(await ctx.nodes.list())
})
