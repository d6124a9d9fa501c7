import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"
import { tokenSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "getClusterToken",
    summary: "The cluster token (minted here or joined with); 404 when none exists",
    tags: ["cluster"],
  },
  response: tokenSchema,
  handler: async ({ ctx }) => {
    const m = await ctx.cluster.read()
    if (!m) throw notFound("this server has no cluster token; mint one with POST /api/cluster/token", "no_token")
    return { token: m.token }
  },
})
