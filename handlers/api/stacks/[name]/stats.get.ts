import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackView as stackState } from "#lib/stacks/state.ts"
import { stackView, statsQuery, type HistoryQuery } from "#lib/stats/views.ts"
import { stackViewSchema as stackStatsSchema } from "#lib/stats/schemas.ts"

export const query = statsQuery
export const detail = {
  operationId: "getStackStats",
  summary:
    "A stack's stats: sums over its running containers and each one's latest sample; history=true adds the sums' last hour and each container's (points=N averages them down)",
  tags: ["stacks", "stats"],
}

export const params = stackParams
export const response = stackStatsSchema

export const role = "viewer"

export default defineHandler<unknown, HistoryQuery>(async ({ params, query, ctx }) => {
  const { name } = params
  await stackState(ctx.stacks, ctx.engine, name)
  return stackView(ctx, name, query)
})
