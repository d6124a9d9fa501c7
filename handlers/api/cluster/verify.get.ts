import * as v from "valibot"
import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { clusterSecurity } from "#lib/cluster/schemas.ts"

export const detail = { operationId: "verifyClusterToken", summary: "Whether the bearer token is this server's cluster token (401 if not); used by probes", tags: ["cluster"], security: clusterSecurity }

export const response = v.object({ server_id: v.string() })

export default defineHandler(async ({ ctx, request }) => {
  await requireBearer(ctx, request)
  return { server_id: ctx.serverId }
})
