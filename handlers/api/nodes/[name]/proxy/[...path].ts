import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { forward } from "#lib/cluster/gateway.ts"
import { gatewaySigner } from "#lib/service/access.ts"
import { nodeName } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "proxy",
    summary:
      "Gateway: forward any request to {node url}/{path}, streamed both ways; a WebSocket upgrade is bridged socket to socket",
    tags: ["nodes"],
  },
  params: v.object({
    name: nodeName,
    path: v.pipe(v.string(), v.description("the path on the node, such as api/containers")),
  }),
  /** Any body, unparsed: it is streamed to the node as it comes. */
  accepts: ["*"],
  response: {
    contentType: "*/*",
    description: "the node's answer, status, headers and body as it sent them",
  },
  handler: async ({ params, request, ctx }) =>
    forward(await ctx.nodes.get(params.name), request, await gatewaySigner(ctx, request)),
})
