import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { nodeName, nodeSchema } from "#lib/cluster/schemas.ts"
import { CLOSE, tunnels } from "#lib/cluster/tunnel.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeNode",
    summary:
      "Drop a node from the registry (the node itself is untouched); with server_id only if the name is still that server's",
    tags: ["nodes"],
  },
  params: v.object({ name: nodeName }),
  query: v.object({ server_id: v.optional(v.string()) }),
  response: nodeSchema,
  handler: async ({ params, query, ctx }) => {
    const node = await ctx.nodes.remove(params.name, query.server_id)
    tunnels.close(node.server_id, CLOSE.removed, "removed") // an outbound node's connection ends with its entry
    return node
  },
})
