import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { engineRef, removed } from "#lib/engine/schemas.ts"
import { removeSwarmNode } from "#lib/swarm/nodes.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeSwarmNode",
    summary: "Remove a node from the swarm; one that is not down only with force=true",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  query: v.object({
    force: v.optional(flagFor("remove a node that is not down (its engine stays in a swarm of its own)")),
  }),
  response: removed("id"),
  handler: async ({ params, query, ctx }) => removeSwarmNode(ctx.engine, ctx.events, params.id, query.force ?? false),
})
