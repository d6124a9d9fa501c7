import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { swarmSchema } from "#lib/swarm/schemas.ts"
import { leaveSwarm } from "#lib/swarm/state.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "leaveSwarm",
    summary: "Take this engine out of its swarm; a manager leaves only with force (409 otherwise)",
    tags: ["swarm"],
  },
  body: v.optional(
    v.object({
      force: v.optional(v.pipe(v.boolean(), v.description("leave even as a manager (the swarm may lose its quorum)"))),
    }),
    {},
  ),
  response: swarmSchema,
  handler: async ({ body, ctx }) => leaveSwarm(ctx.engine, ctx.events, body.force ?? false),
})
