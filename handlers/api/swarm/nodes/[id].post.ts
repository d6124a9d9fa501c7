import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmNodeSchema } from "#lib/swarm/schemas.ts"
import { updateSwarmNode } from "#lib/swarm/nodes.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "updateSwarmNode",
    summary:
      "Change a swarm node's availability (active, pause, drain) or labels; answers the node (promote and demote: .../role)",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  body: v.pipe(
    v.object({
      availability: v.optional(
        v.pipe(
          v.picklist(["active", "pause", "drain"], "must be one of active, pause, drain"),
          v.description("drain moves the node's tasks off it; pause takes no new ones"),
        ),
      ),
      labels: v.optional(
        v.pipe(
          v.record(v.pipe(v.string(), v.minLength(1), v.maxLength(255)), v.pipe(v.string(), v.maxLength(4096))),
          v.description("the node's labels, replacing the ones it has"),
        ),
      ),
    }),
    v.check((b) => b.availability !== undefined || b.labels !== undefined, "give availability, labels or both"),
    v.examples([{ availability: "drain" as const }]),
  ),
  response: swarmNodeSchema,
  handler: async ({ params, body, ctx }) => updateSwarmNode(ctx.engine, ctx.events, params.id, body),
})
