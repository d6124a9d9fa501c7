import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flag, tail } from "#lib/http/query.ts"
import { sse } from "#lib/http/sse.ts"
import { engineRef, logLineSchema } from "#lib/engine/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"
import { serviceLogLines } from "#lib/swarm/logs.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamSwarmServiceLogs",
    summary:
      "SSE of a swarm service's log, every task's lines, one {service, container, stream, ts, line} object per line with the task's id as container; follow=false sends the last lines and ends",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  query: v.object({ follow: v.optional(flag), tail: v.optional(tail) }),
  response: eventStream(logLineSchema, "one log line per message"),
  handler: async ({ params, query, request, ctx }) => {
    const lines = await serviceLogLines(ctx.engine, params.id, {
      follow: query.follow ?? true,
      tail: query.tail ?? ctx.config.logsTail,
      signal: request.signal,
    })
    return sse(lines, request.signal)
  },
})
