import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { containerView, statsQuery, type HistoryQuery } from "#lib/stats/views.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { containerViewSchema } from "#lib/stats/schemas.ts"

export const query = statsQuery
export const detail = {
  operationId: "getContainerStats",
  summary:
    "One container's latest stats (null while it is not running); history=true adds its last hour as columns (time, cpu_percent, memory_bytes, …), points=N averages it down",
  tags: ["containers", "stats"],
}

export const params = v.object({ id: engineRef })
export const response = containerViewSchema

export const role = "viewer"

export default defineHandler<unknown, HistoryQuery>(async ({ params, query, ctx }) =>
  containerView(ctx, await ctx.engine.inspectContainer(params.id), query),
)
