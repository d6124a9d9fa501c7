import { defineHandler } from "#lib/service/handler.ts"
import { notFound } from "#lib/http/http-error.ts"
import { tokenSchema } from "#lib/cluster/schemas.ts"

export const detail = {
  operationId: "getClusterToken",
  summary: "The cluster token (minted here or joined with); 404 when none exists",
  tags: ["cluster"],
}

export const response = tokenSchema

export const role = "admin"

export default defineHandler(async ({ ctx }) => {
  const m = await ctx.cluster.read()
  if (!m) throw notFound("this server has no cluster token; mint one with POST /api/cluster/token", "no_token")
  return { token: m.token }
})
