import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { nodeSchema } from "#lib/cluster/schemas.ts"

export const detail = {
  operationId: "listNodes",
  summary:
    "The node registry (the servers running this service, ordered by name); a Docker Swarm's nodes are /api/swarm/nodes",
  tags: ["nodes"],
}

export const response = v.array(nodeSchema)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => ctx.nodes.list())
