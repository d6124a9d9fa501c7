import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { eventStream } from "#lib/http/schemas.ts"
import { sse } from "#lib/http/sse.ts"
import { backupMessageSchema, backupResultSchema, repoParams, runInput } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "backUpStack",
    summary:
      "Back up the stack now: its records (compose, files, environment, versions) and its named volumes' data, with what each piece added to the repository; hooks run around the snapshot (a dump first, the stack stopped during it); keep forgets and prunes older backups after. With stream=true, an event stream of restic's progress, then the result (done) or the failure (failed); the backup stops when the stream's client goes away",
    tags: ["backups"],
  },
  params: repoParams,
  query: v.object({
    stream: v.optional(flagFor("answer an event stream of the backup's progress, then its result")),
  }),
  body: v.optional(runInput, {}),
  response: {
    201: backupResultSchema,
    200: eventStream(
      backupMessageSchema,
      "progress messages while restic reads, then one done (the result) or failed (the error)",
    ),
  },
  handler: async ({ params, query, body, request, ctx, set }) => {
    const run = { signal: request.signal, keep: body.keep, hooks: body.hooks, binds: body.binds }
    if (query.stream) return sse(ctx.backups.backupStream(params.repo, params.stack, run), request.signal)
    const result = await ctx.backups.backup(params.repo, params.stack, run)
    set.status = 201
    return result
  },
})
