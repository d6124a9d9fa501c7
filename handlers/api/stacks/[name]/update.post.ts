import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { watchBody } from "#lib/updates/watch-body.ts"
import { stackUpdatedSchema } from "#lib/updates/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "updateStack",
    summary:
      "Guarded update: pin the running images by digest, pull, and when an image moved bring the stack up and watch its health for `watch` seconds (default SVC_UPDATE_WATCH); a failed watch rolls back to the pinned images without pulling. Answers the stack with `update`: {verdict: updated | rolled_back | rollback_failed | unchanged, reason, fix, images, ...}",
    tags: ["stacks"],
  },
  params: stackParams,
  body: watchBody,
  response: stackUpdatedSchema,
  handler: async ({ params, body, ctx }) => ctx.verbs.update(params.name, body),
})
