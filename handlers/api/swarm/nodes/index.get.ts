import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { swarmNodeSchema } from "#lib/swarm/schemas.ts"
import { listSwarmNodes } from "#lib/swarm/nodes.ts"

export const detail = {
  operationId: "listSwarmNodes",
  summary:
    "The Docker Swarm's nodes (engines in the swarm, as its manager sees them, with the tasks running on each), by hostname; the servers running this service are the node registry, /api/nodes",
  tags: ["swarm"],
}

export const response = v.array(swarmNodeSchema)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => listSwarmNodes(ctx.engine))
