import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { nodeSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listNodes",
    summary:
      "The node registry (the servers running this service, ordered by name); a Docker Swarm's nodes are /api/swarm/nodes",
    tags: ["nodes"],
  },
  response: v.array(nodeSchema),
  handler: async ({ ctx }) => ctx.nodes.list(),
})
