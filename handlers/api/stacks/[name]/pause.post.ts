import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "pauseStack",
  summary: "Pause every running container of the stack, found by the compose labels",
  tags: ["stacks"],
}

export const params = stackParams
export const response = stackSchema

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => ctx.verbs.action(params.name, "pause"))
