import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { swarmNodeSchema } from "#lib/swarm/schemas.ts"
import { listSwarmNodes } from "#lib/swarm/nodes.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listSwarmNodes",
    summary:
      "The Docker Swarm's nodes (engines in the swarm, as its manager sees them, with the tasks running on each), by hostname; the servers running this service are the node registry, /api/nodes",
    tags: ["swarm"],
  },
  response: v.array(swarmNodeSchema),
  handler: async ({ ctx }) => listSwarmNodes(ctx.engine),
})
