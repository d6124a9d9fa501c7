import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "restartStack",
  summary: "Restart every container of the stack (paused ones excepted), found by the compose labels",
  tags: ["stacks"],
}

export const params = stackParams
export const response = stackSchema

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => ctx.verbs.action(params.name, "restart"))
