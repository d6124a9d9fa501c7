import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { containerStream } from "#lib/stats/views.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { containerStreamSchema } from "#lib/stats/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamContainerStats",
    summary:
      "SSE of one container's stats, one sample per interval; when it stops, one {id, time, running: false} and nothing until it runs again",
    tags: ["containers", "stats"],
  },
  params: v.object({ id: engineRef }),
  response: eventStream(containerStreamSchema, "one sample per interval, or {id, time, running: false} once it stops"),
  handler: async ({ params, request, ctx }) => {
    const { Id } = await ctx.engine.inspectContainer(params.id)
    return sse(containerStream(ctx.stats, Id, request.signal), request.signal)
  },
})
