import * as v from "valibot"
import { syncOutcomeSchema } from "#lib/git/schemas.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { watchBody } from "#lib/updates/watch-body.ts"

export const detail = {
  operationId: "syncStackGit",
  summary:
    "Fetch the stack's ref; a new commit is deployed as a version recording it, watched for `watch` seconds (SVC_UPDATE_WATCH unless given) and rolled back when the watch fails. Verdicts: applied, unchanged, rolled_back, rollback_failed, stopped (a stopped stack stays stopped), refused, failed",
  tags: ["git"],
}
export const params = stackParams
export const body = watchBody
export const response = syncOutcomeSchema

export const role = "operator"

export default defineHandler<v.InferOutput<typeof body>>(({ params, body, request, ctx }) =>
  ctx.git.sync(params.name, { trigger: "api", watch: body.watch ?? ctx.config.updateWatch, signal: request.signal }),
)
