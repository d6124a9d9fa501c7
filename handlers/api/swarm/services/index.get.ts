import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { swarmServiceSchema } from "#lib/swarm/schemas.ts"
import { listSwarmServices } from "#lib/swarm/services.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listSwarmServices",
    summary:
      "The swarm's services by name: image, mode, replicas desired and running, stack, published ports, update status",
    tags: ["swarm"],
  },
  query: v.object({
    stack: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.maxLength(255),
        v.description("only this stack's services (its namespace label)"),
      ),
    ),
  }),
  response: v.array(swarmServiceSchema),
  handler: async ({ query, ctx }) => listSwarmServices(ctx.engine, query.stack),
})
