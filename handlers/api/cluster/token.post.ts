import { defineRoute } from "#lib/service/handler.ts"
import { conflict } from "#lib/errors/errors.ts"
import { tokenSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "mintClusterToken",
    summary: "Mint a new cluster token, retiring the previous one; this server becomes the control plane",
    tags: ["cluster"],
  },
  response: { 201: tokenSchema },
  handler: async ({ ctx, set }) => {
    const m = await ctx.cluster.read()
    if (m?.role === "member")
      throw conflict(
        `this server is a member of ${m.control_plane_url}; leave (DELETE /api/cluster/membership) before minting a token`,
        "is_member",
      )
    set.status = 201
    return { token: ctx.cluster.mint() }
  },
})
