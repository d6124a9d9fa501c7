import { defineRoute } from "#lib/service/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"
import { stackStream } from "#lib/stats/views.ts"
import { stackViewSchema as stackStatsSchema } from "#lib/stats/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamStackStats",
    summary: "SSE of a stack's stats, one {name, time, interval, host, sum, containers} message per interval",
    tags: ["stacks", "stats"],
  },
  params: stackParams,
  response: eventStream(stackStatsSchema, "one {name, time, interval, host, sum, containers} per interval"),
  handler: async ({ params, request, ctx }) => {
    const { name } = params
    await stackView(ctx.stacks, ctx.engine, name)
    return sse(stackStream(ctx.stats, name, request.signal), request.signal)
  },
})
