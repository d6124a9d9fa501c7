import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { swarmAddr, swarmSchema } from "#lib/swarm/schemas.ts"
import { initSwarm } from "#lib/swarm/state.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "initSwarm",
    summary:
      "Make this engine a new swarm's first manager; answers its place in the swarm (409 when it is in one already)",
    tags: ["swarm"],
  },
  body: v.object({
    advertise_addr: v.optional(
      v.pipe(swarmAddr, v.description("the address other nodes reach this one at (default: the engine's choice)")),
    ),
    listen_addr: v.optional(v.pipe(swarmAddr, v.description('where the swarm listens (default "0.0.0.0:2377")'))),
  }),
  response: swarmSchema,
  handler: async ({ body, ctx }) => initSwarm(ctx.engine, ctx.events, body),
})
