import { defineHandler } from "#lib/http/handler.ts"
import { sse } from "#lib/http/sse.ts"

export const detail = { summary: "SSE of engine and service events, one event object per message, with heartbeats", tags: ["system"] }

export default defineHandler(async ({ request, ctx }) => sse(ctx.events.subscribe(request.signal), request.signal))
