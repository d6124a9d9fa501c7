import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { containerLogs } from "#lib/engine/logs.ts"
import { flag, tail } from "#lib/http/query.ts"
import { sse } from "#lib/http/sse.ts"
import { engineRef, logLineSchema } from "#lib/engine/schemas.ts"
import { eventStream } from "#lib/http/schemas.ts"

export const query = v.object({ follow: v.optional(flag), tail: v.optional(tail) })
export const detail = {
  operationId: "streamContainerLogs",
  summary:
    "SSE of a container's log, one {service, container, stream, ts, line} object per line; follow=false sends the last lines and ends",
  tags: ["containers"],
}

export const params = v.object({ id: engineRef })
export const response = eventStream(logLineSchema, "one log line per message")

export const role = "viewer"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, request, ctx }) => {
  const lines = await containerLogs(ctx.engine, params.id, {
    follow: query.follow ?? true,
    tail: query.tail ?? ctx.config.logsTail,
    signal: request.signal,
  })
  return sse(lines, request.signal)
})
