import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { targetGroups } from "#lib/metrics/metrics.ts"
import { targetGroupSchema } from "#lib/metrics/schemas.ts"

export default defineRoute({
  role: "viewer",
  access: "metrics",
  detail: {
    operationId: "getMetricsTargets",
    summary: "The registry's nodes as Prometheus HTTP service discovery JSON, each group labelled node",
    tags: ["metrics"],
  },
  response: v.array(targetGroupSchema),
  handler: async ({ ctx }) => targetGroups(await ctx.nodes.list()),
})
