import * as v from "valibot"
import { defineSocket } from "#lib/service/handler.ts"
import { bridge } from "#lib/cluster/gateway.ts"
import { gatewaySigner } from "#lib/service/access.ts"
import { nodeName } from "#lib/cluster/schemas.ts"

/** Gateway for WebSockets: bridged socket to socket with the node's route at {path}. */
export const params = v.object({ name: nodeName, path: v.string() })

export const role = "admin"

export default defineSocket(async ({ params, request, ctx }) =>
  bridge(await ctx.nodes.get(params.name), request.url, await gatewaySigner(ctx, request)),
)
