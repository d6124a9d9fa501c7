import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { rollbackService } from "#lib/swarm/services.ts"

export const detail = {
  operationId: "rollbackSwarmService",
  summary:
    "The swarm's own rollback: a service back to the spec it had before its last update (409 no_previous_spec when it has none); answers the service",
  tags: ["swarm"],
}

export const params = v.object({ id: engineRef })
export const response = swarmServiceDetailSchema

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => rollbackService(ctx.engine, ctx.events, params.id))
