import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { check } from "#lib/cluster/probe.ts"
import { nodeName, nodeSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "checkNode",
    summary: "Probe one node and return it with the result",
    tags: ["nodes"],
  },
  params: v.object({ name: nodeName }),
  response: nodeSchema,
  handler: async ({ params, ctx }) => check(ctx, await ctx.nodes.get(params.name)),
})
