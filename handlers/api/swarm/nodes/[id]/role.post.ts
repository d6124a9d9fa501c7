import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { swarmNodeSchema } from "#lib/swarm/schemas.ts"
import { updateSwarmNode } from "#lib/swarm/nodes.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "setSwarmNodeRole",
    summary: "Promote a swarm node to manager or demote it to worker; answers the node",
    tags: ["swarm"],
  },
  params: v.object({ id: engineRef }),
  body: v.object({
    role: v.pipe(
      v.picklist(["manager", "worker"], "must be manager or worker"),
      v.description("manager promotes the node, worker demotes it"),
    ),
  }),
  response: swarmNodeSchema,
  handler: async ({ params, body, ctx }) => updateSwarmNode(ctx.engine, ctx.events, params.id, { role: body.role }),
})
