import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { getSwarmService } from "#lib/swarm/services.ts"

export const detail = {
  operationId: "getSwarmService",
  summary: "One swarm service (by id or name) with its tasks: node, state, desired state, error, container",
  tags: ["swarm"],
}

export const params = v.object({ id: engineRef })
export const response = swarmServiceDetailSchema

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => getSwarmService(ctx.engine, params.id))
