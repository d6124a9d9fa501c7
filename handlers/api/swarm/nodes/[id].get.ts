import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmNodeSchema } from "#lib/swarm/schemas.ts"
import { getSwarmNode } from "#lib/swarm/nodes.ts"

export const detail = {
  operationId: "getSwarmNode",
  summary: "One node of the Docker Swarm, by id or hostname (not the node registry's /api/nodes/:name)",
  tags: ["swarm"],
}

export const params = v.object({ id: engineRef })
export const response = swarmNodeSchema

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => getSwarmNode(ctx.engine, params.id))
