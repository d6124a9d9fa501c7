import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackView as stackState } from "#lib/stacks/state.ts"
import { stackView, statsQuery } from "#lib/stats/views.ts"
import { stackViewSchema as stackStatsSchema } from "#lib/stats/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackStats",
    summary:
      "A stack's stats: sums over its running containers and each one's latest sample; history=true adds the sums' last hour and each container's (points=N averages them down)",
    tags: ["stacks", "stats"],
  },
  params: stackParams,
  query: statsQuery,
  response: stackStatsSchema,
  handler: async ({ params, query, ctx }) => {
    const { name } = params
    await stackState(ctx.stacks, ctx.engine, name)
    return stackView(ctx, name, query)
  },
})
