import { defineHandler } from "#lib/http/handler.ts"
import { sse } from "#lib/http/sse.ts"

export const detail = {
  summary: "SSE of stats rounds: every interval one {time, interval, host, containers, stacks, error} message, as GET /api/stats answers; a stopped container is absent from the next one",
  tags: ["stats"],
}

export default defineHandler(async ({ request, ctx }) => sse(ctx.stats.subscribe(request.signal), request.signal))
