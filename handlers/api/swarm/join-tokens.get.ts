import { defineRoute } from "#lib/service/handler.ts"
import { joinTokensSchema } from "#lib/swarm/schemas.ts"
import { joinTokens } from "#lib/swarm/state.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "getSwarmJoinTokens",
    summary:
      "The swarm's join tokens for a worker and a manager (a manager's, with the cluster token): the only answer that shows them",
    tags: ["swarm"],
  },
  response: joinTokensSchema,
  handler: async ({ ctx }) => joinTokens(ctx.engine),
})
