import { defineHandler } from "#lib/http/handler.ts"
import { forward } from "#lib/cluster/gateway.ts"

/** Any body, unparsed: it is streamed to the node as it comes. */
export const accepts = ["*"]
export const detail = { summary: "Gateway: forward any request to {node url}/{path}, streamed both ways", tags: ["nodes"] }

export default defineHandler(async ({ params, request, ctx }) => forward(await ctx.nodes.get(params.name!), request))
