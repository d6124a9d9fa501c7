import { defineSocket } from "#lib/http/handler.ts"
import { bridge } from "#lib/cluster/gateway.ts"

/** Gateway for WebSockets: bridged socket to socket with the node's route at {path}. */
export default defineSocket(async ({ params, request, ctx }) => bridge(await ctx.nodes.get(params.name!), request.url))
