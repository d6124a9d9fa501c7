import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { targetGroups } from "#lib/metrics/metrics.ts"
import { targetGroupSchema } from "#lib/metrics/schemas.ts"

export const detail = {
  operationId: "getMetricsTargets",
  summary: "The registry's nodes as Prometheus HTTP service discovery JSON, each group labelled node",
  tags: ["metrics"],
}

export const response = v.array(targetGroupSchema)

export const access = "metrics"

export const role = "viewer"

export default defineHandler(async ({ ctx }) => targetGroups(await ctx.nodes.list()))
