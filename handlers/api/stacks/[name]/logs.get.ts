import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flag, tail } from "#lib/http/query.ts"
import { sseBatches } from "#lib/http/sse.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackLog } from "#lib/stacks/state.ts"
import { logLineSchema } from "#lib/engine/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "streamStackLogs",
    summary:
      "SSE merging every container's log, one {service, container, stream, ts, line} per line; tail applies per container; follow=false ends after the tails. A swarm stack's: every service's tasks on every node, `container` the task's id, tail per service",
    tags: ["stacks"],
  },
  params: stackParams,
  query: v.object({ follow: v.optional(flag), tail: v.optional(tail) }),
  response: eventStream(logLineSchema, "one log line per message, every container's merged"),
  handler: async ({ params, query, request, ctx }) => {
    const q = { follow: query.follow ?? true, tail: query.tail ?? ctx.config.logsTail, signal: request.signal }
    return sseBatches(await stackLog(ctx.stacks, ctx.engine, params.name, q), request.signal)
  },
})
