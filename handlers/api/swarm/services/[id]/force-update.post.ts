import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { forceUpdateService } from "#lib/swarm/services.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "forceUpdateSwarmService",
    summary: "Replace every task of a service with the same spec, as its update policy rolls; answers the service",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  response: swarmServiceDetailSchema,
  handler: async ({ params, ctx }) => forceUpdateService(ctx.engine, ctx.events, params.id),
})
