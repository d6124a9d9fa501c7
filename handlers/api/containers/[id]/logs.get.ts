import * as v from "valibot"
import { defineHandler } from "#lib/http/handler.ts"
import { containerLogs } from "#lib/engine/logs.ts"
import { flag, tail } from "#lib/http/query.ts"
import { sse } from "#lib/http/sse.ts"

export const query = v.object({ follow: v.optional(flag), tail: v.optional(tail) })
export const detail = {
  summary: "SSE of a container's log, one {service, container, stream, ts, line} object per line; follow=false sends the last lines and ends",
  tags: ["containers"],
}

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, request, ctx }) => {
  const lines = await containerLogs(ctx.engine, params.id!, { follow: query.follow ?? true, tail: query.tail ?? ctx.config.logsTail, signal: request.signal })
  return sse(lines, request.signal)
})
