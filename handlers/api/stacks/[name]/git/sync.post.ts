import { syncOutcomeSchema } from "#lib/git/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { watchBody } from "#lib/updates/watch-body.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "syncStackGit",
    summary:
      "Fetch the stack's ref; a new commit is deployed as a version recording it, watched for `watch` seconds (SVC_UPDATE_WATCH unless given) and rolled back when the watch fails. Verdicts: applied, unchanged, rolled_back, rollback_failed, stopped (a stopped stack stays stopped), refused, failed",
    tags: ["git"],
  },
  params: stackParams,
  body: watchBody,
  response: syncOutcomeSchema,
  handler: ({ params, body, request, ctx }) =>
    ctx.git.sync(params.name, { trigger: "api", watch: body.watch ?? ctx.config.updateWatch, signal: request.signal }),
})
