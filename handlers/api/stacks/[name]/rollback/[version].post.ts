import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { watchBody } from "#lib/updates/watch-body.ts"
import { versionParam } from "#lib/stacks/schemas.ts"
import { stackUpdatedSchema } from "#lib/updates/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "rollbackStack",
    summary:
      "Redeploy the compose file, environment and files of a version, which becomes current (no version is added). With `watch` (seconds), the stack's health is watched afterwards and a failed watch goes back to the state before; the answer then carries `update` with the verdict",
    tags: ["stacks"],
  },
  params: v.object({ name: stackNameSchema, version: versionParam }),
  body: watchBody,
  response: stackUpdatedSchema,
  handler: async ({ params, body, request, ctx }) =>
    ctx.verbs.rollback(params.name, params.version, { ...body, signal: request.signal }),
})
