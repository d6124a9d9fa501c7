import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { nodeName, nodeSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: { operationId: "getNode", summary: "One node of the registry", tags: ["nodes"] },
  params: v.object({ name: nodeName }),
  response: nodeSchema,
  handler: async ({ params, ctx }) => ctx.nodes.get(params.name),
})
