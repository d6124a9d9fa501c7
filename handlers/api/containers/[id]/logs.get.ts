import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { containerLogs } from "#lib/engine/logs.ts"
import { flag, tail } from "#lib/http/query.ts"
import { sse } from "#lib/http/sse.ts"
import { engineRef, logLineSchema } from "#lib/engine/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamContainerLogs",
    summary:
      "SSE of a container's log, one {service, container, stream, ts, line} object per line; follow=false sends the last lines and ends",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: v.object({ follow: v.optional(flag), tail: v.optional(tail) }),
  response: eventStream(logLineSchema, "one log line per message"),
  handler: async ({ params, query, request, ctx }) => {
    const lines = await containerLogs(ctx.engine, params.id, {
      follow: query.follow ?? true,
      tail: query.tail ?? ctx.config.logsTail,
      signal: request.signal,
    })
    return sse(lines, request.signal)
  },
})
