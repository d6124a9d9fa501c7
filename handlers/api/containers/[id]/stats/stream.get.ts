import { defineHandler } from "#lib/http/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { containerStream } from "#lib/stats/views.ts"

export const detail = {
  summary: "SSE of one container's stats, one sample per interval; when it stops, one {id, time, running: false} and nothing until it runs again",
  tags: ["containers", "stats"],
}

export default defineHandler(async ({ params, request, ctx }) => {
  const { Id } = await ctx.engine.inspectContainer(params.id!)
  return sse(containerStream(ctx.stats, Id, request.signal), request.signal)
})
