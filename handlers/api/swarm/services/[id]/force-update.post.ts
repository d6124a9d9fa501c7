import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { forceUpdateService } from "#lib/swarm/services.ts"

export const detail = {
  operationId: "forceUpdateSwarmService",
  summary: "Replace every task of a service with the same spec, as its update policy rolls; answers the service",
  tags: ["swarm"],
}

export const params = v.object({ id: engineRef })
export const response = swarmServiceDetailSchema

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => forceUpdateService(ctx.engine, ctx.events, params.id))
