import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { containerView, statsQuery } from "#lib/stats/views.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { containerViewSchema } from "#lib/stats/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getContainerStats",
    summary:
      "One container's latest stats (null while it is not running); history=true adds its last hour as columns (time, cpu_percent, memory_bytes, …), points=N averages it down",
    tags: ["containers", "stats"],
  },
  params: v.object({ id: engineRef }),
  query: statsQuery,
  response: containerViewSchema,
  handler: async ({ params, query, ctx }) => containerView(ctx, await ctx.engine.inspectContainer(params.id), query),
})
