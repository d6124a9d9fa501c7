import * as v from "valibot"
import { defineSocket } from "#lib/service/handler.ts"
import { bridge } from "#lib/cluster/gateway.ts"
import { gatewaySigner } from "#lib/service/access.ts"
import { nodeName } from "#lib/cluster/schemas.ts"

export default defineSocket({
  role: "admin",
  /** Gateway for WebSockets: bridged socket to socket with the node's route at {path}. */
  params: v.object({ name: nodeName, path: v.string() }),
  handler: async ({ params, request, ctx }) =>
    bridge(await ctx.nodes.get(params.name), request.url, await gatewaySigner(ctx, request)),
})
