import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { engineRef, removed } from "#lib/engine/schemas.ts"
import { removeSwarmNode } from "#lib/swarm/nodes.ts"

export const query = v.object({
  force: v.optional(flagFor("remove a node that is not down (its engine stays in a swarm of its own)")),
})
export const detail = {
  operationId: "removeSwarmNode",
  summary: "Remove a node from the swarm; one that is not down only with force=true",
  tags: ["swarm"],
}

export const params = v.object({ id: engineRef })
export const response = removed("id")

export const role = "admin"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, ctx }) =>
  removeSwarmNode(ctx.engine, ctx.events, params.id, query.force ?? false),
)
