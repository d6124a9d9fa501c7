import { defineRoute } from "#lib/service/handler.ts"
import { swarmSchema } from "#lib/swarm/schemas.ts"
import { readSwarm } from "#lib/swarm/state.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getSwarm",
    summary:
      "This engine's place in a Docker Swarm: active or not, manager or worker, the cluster and node ids, the managers and (on a manager) how many nodes; never a join token",
    tags: ["swarm"],
  },
  response: swarmSchema,
  handler: async ({ ctx }) => readSwarm(ctx.engine),
})
