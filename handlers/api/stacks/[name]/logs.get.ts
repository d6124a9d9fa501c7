import * as v from "valibot"
import { defineHandler } from "../../../../lib/handler.ts"
import { flag, tail } from "../../../../lib/query.ts"
import { sseBatches } from "../../../../lib/sse.ts"
import { stackName } from "../../../../lib/stack-name.ts"
import { stackLogs } from "../../../../lib/stack-logs.ts"
import { stackView } from "../../../../lib/stack-state.ts"

export const query = v.object({ follow: v.optional(flag), tail: v.optional(tail) })
export const detail = {
  summary: "SSE merging every container's log, one {service, container, stream, ts, line} per line; tail applies per container; follow=false ends after the tails",
  tags: ["stacks"],
}

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, request, ctx }) => {
  const view = await stackView(ctx.stacks, ctx.engine, stackName(params.name))
  const ids = view.services.flatMap((s) => s.containers.map((c) => c.id))
  return sseBatches(await stackLogs(ctx.engine, ids, { follow: query.follow ?? true, tail: query.tail ?? ctx.config.logsTail, signal: request.signal }), request.signal)
})
