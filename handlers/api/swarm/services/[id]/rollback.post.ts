import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmServiceDetailSchema } from "#lib/swarm/schemas.ts"
import { rollbackService } from "#lib/swarm/services.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "rollbackSwarmService",
    summary:
      "The swarm's own rollback: a service back to the spec it had before its last update (409 no_previous_spec when it has none); answers the service",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  response: swarmServiceDetailSchema,
  handler: async ({ params, ctx }) => rollbackService(ctx.engine, ctx.events, params.id),
})
