import { defineHandler } from "#lib/service/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { roundSchema } from "#lib/stats/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export const detail = {
  operationId: "streamStats",
  summary:
    "SSE of stats rounds: every interval one {time, interval, host, containers, stacks, error} message, as GET /api/stats answers; a stopped container is absent from the next one",
  tags: ["stats"],
}

export const response = eventStream(roundSchema, "one stats round per interval")

export const role = "viewer"

export default defineHandler(async ({ request, ctx }) => sse(ctx.stats.subscribe(request.signal), request.signal))
