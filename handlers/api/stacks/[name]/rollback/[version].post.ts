import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { watchBody } from "#lib/updates/watch-body.ts"
import { versionParam } from "#lib/stacks/schemas.ts"
import { stackUpdatedSchema } from "#lib/updates/schemas.ts"

export const detail = {
  operationId: "rollbackStack",
  summary:
    "Redeploy the compose file, environment and files of a version, which becomes current (no version is added). With `watch` (seconds), the stack's health is watched afterwards and a failed watch goes back to the state before; the answer then carries `update` with the verdict",
  tags: ["stacks"],
}
export const body = watchBody

export const params = v.object({ name: stackNameSchema, version: versionParam })
export const response = stackUpdatedSchema

export const role = "operator"

export default defineHandler<v.InferOutput<typeof body>, unknown, v.InferOutput<typeof params>>(
  async ({ params, body, request, ctx }) =>
    ctx.verbs.rollback(params.name, params.version, { ...body, signal: request.signal }),
)
