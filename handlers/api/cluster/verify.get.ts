import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Whether the bearer token is this server's cluster token (401 if not); used by probes", tags: ["cluster"] }

export default defineHandler(async ({ ctx, request }) => {
  await requireBearer(ctx, request)
  return { server_id: ctx.serverId }
})
