import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "stopStack",
    summary:
      "Stop every running or paused container of the stack, found by the compose labels (kept, to be started again); 409 not_supported for a swarm stack",
    tags: ["stacks"],
  },
  params: stackParams,
  response: stackSchema,
  handler: async ({ params, ctx }) => ctx.verbs.action(params.name, "stop"),
})
