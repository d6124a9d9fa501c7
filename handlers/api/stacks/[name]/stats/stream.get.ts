import { defineHandler } from "#lib/http/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { stackName } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"
import { stackStream } from "#lib/stats/views.ts"

export const detail = {
  summary: "SSE of a stack's stats, one {name, time, interval, host, sum, containers} message per interval",
  tags: ["stacks", "stats"],
}

export default defineHandler(async ({ params, request, ctx }) => {
  const name = stackName(params.name)
  await stackView(ctx.stacks, ctx.engine, name)
  return sse(stackStream(ctx.stats, name, request.signal), request.signal)
})
