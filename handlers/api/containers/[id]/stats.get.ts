import { defineHandler } from "#lib/http/handler.ts"
import { containerView, statsQuery, type HistoryQuery } from "#lib/stats/views.ts"

export const query = statsQuery
export const detail = {
  summary: "One container's latest stats (null while it is not running); history=true adds its last hour as columns (time, cpu_percent, memory_bytes, …), points=N averages it down",
  tags: ["containers", "stats"],
}

export default defineHandler<unknown, HistoryQuery>(async ({ params, query, ctx }) => containerView(ctx, await ctx.engine.inspectContainer(params.id!), query))
