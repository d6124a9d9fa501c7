import { defineRoute } from "#lib/service/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { roundSchema } from "#lib/stats/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamStats",
    summary:
      "SSE of stats rounds: every interval one {time, interval, host, containers, stacks, error} message, as GET /api/stats answers; a stopped container is absent from the next one",
    tags: ["stats"],
  },
  response: eventStream(roundSchema, "one stats round per interval"),
  handler: async ({ request, ctx }) => sse(ctx.stats.subscribe(request.signal), request.signal),
})
