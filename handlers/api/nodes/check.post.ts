import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { check } from "#lib/cluster/probe.ts"
import { nodeSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "checkNodes",
    summary: "Probe every node in parallel, each within the probe deadline; returns all",
    tags: ["nodes"],
  },
  response: v.array(nodeSchema),
  handler: async ({ ctx }) => Promise.all((await ctx.nodes.list()).map((node) => check(ctx, node))),
})
