import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmNodeSchema } from "#lib/swarm/schemas.ts"
import { getSwarmNode } from "#lib/swarm/nodes.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getSwarmNode",
    summary: "One node of the Docker Swarm, by id or hostname (not the node registry's /api/nodes/:name)",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  response: swarmNodeSchema,
  handler: async ({ params, ctx }) => getSwarmNode(ctx.engine, params.id),
})
