import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { getSwarmService } from "#lib/swarm/services.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getSwarmService",
    summary: "One swarm service (by id or name) with its tasks: node, state, desired state, error, container",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  response: swarmServiceDetailSchema,
  handler: async ({ params, ctx }) => getSwarmService(ctx.engine, params.id),
})
