import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { scaleService } from "#lib/swarm/services.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "scaleSwarmService",
    summary: "Set a replicated service's replicas (409 not_replicated for a global service); answers the service",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  body: v.pipe(
    v.object({
      replicas: v.pipe(
        v.number("must be a whole number"),
        v.integer("must be a whole number"),
        v.minValue(0, "must be 0 or more"),
        v.maxValue(10_000, "must be 10000 or fewer"),
      ),
    }),
    v.examples([{ replicas: 3 }]),
  ),
  response: swarmServiceDetailSchema,
  handler: async ({ params, body, ctx }) => scaleService(ctx.engine, ctx.events, params.id, body.replicas),
})
