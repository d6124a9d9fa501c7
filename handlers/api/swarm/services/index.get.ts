import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { swarmServiceSchema } from "#lib/swarm/schemas.ts"
import { listSwarmServices } from "#lib/swarm/services.ts"

export const query = v.object({
  stack: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(255),
      v.description("only this stack's services (its namespace label)"),
    ),
  ),
})
export const detail = {
  operationId: "listSwarmServices",
  summary:
    "The swarm's services by name: image, mode, replicas desired and running, stack, published ports, update status",
  tags: ["swarm"],
}

export const response = v.array(swarmServiceSchema)

export const role = "viewer"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ query, ctx }) =>
  listSwarmServices(ctx.engine, query.stack),
)
