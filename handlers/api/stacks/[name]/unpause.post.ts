import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "unpauseStack",
    summary: "Resume every paused container of the stack, found by the compose labels",
    tags: ["stacks"],
  },
  params: stackParams,
  response: stackSchema,
  handler: async ({ params, ctx }) => ctx.verbs.action(params.name, "unpause"),
})
