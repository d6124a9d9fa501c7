import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { swarmAddr, swarmSchema } from "#lib/swarm/schemas.ts"
import { joinSwarm } from "#lib/swarm/state.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "joinSwarm",
    summary: "Join this engine to a swarm with a join token (as a worker or a manager, as the token says)",
    tags: ["swarm"],
  },
  body: v.object({
    remote_addrs: v.pipe(
      v.array(swarmAddr),
      v.minLength(1, "name at least one manager"),
      v.maxLength(16),
      v.description("managers of the swarm (host:port)"),
    ),
    join_token: v.pipe(
      v.string(),
      v.regex(/^SWMTKN-[\w-]+$/, "must be a swarm join token (SWMTKN-...)"),
      v.maxLength(512),
      v.description("a worker's or a manager's join token; kept nowhere"),
    ),
    advertise_addr: v.optional(swarmAddr),
    listen_addr: v.optional(swarmAddr),
  }),
  response: swarmSchema,
  handler: async ({ body, ctx }) => joinSwarm(ctx.engine, ctx.events, body),
})
