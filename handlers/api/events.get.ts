import { defineRoute } from "#lib/service/handler.ts"
import { sse } from "#lib/http/sse.ts"
import { eventSchema } from "#lib/engine/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamEvents",
    summary: "SSE of engine and service events, one event object per message, with heartbeats",
    tags: ["system"],
  },
  response: eventStream(eventSchema, "one engine or service event per message"),
  handler: async ({ request, ctx }) => sse(ctx.events.subscribe(request.signal), request.signal),
})
