import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { watchBody } from "#lib/updates/watch-body.ts"
import { stackUpdatedSchema } from "#lib/updates/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "applyStack",
    summary:
      "Redeploy with the stored environment and files, add a version, clear env_pending. With `watch` (seconds), the stack's health is watched afterwards and a failed watch rolls back to the state before; the answer then carries `update` with the verdict",
    tags: ["stacks"],
  },
  params: stackParams,
  body: watchBody,
  response: stackUpdatedSchema,
  handler: async ({ params, body, request, ctx }) => ctx.verbs.apply(params.name, { ...body, signal: request.signal }),
})
