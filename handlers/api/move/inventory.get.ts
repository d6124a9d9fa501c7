import { requireBearer } from "#lib/cluster/bearer.ts"
import { serverInventory } from "#lib/copy/copy.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { inventorySchema } from "#lib/copy/schemas.ts"
import { clusterSecurity } from "#lib/cluster/schemas.ts"

export const detail = {
  operationId: "getInventory",
  summary: "What a copy needs to know about this server: server_id, stack names, volume names, published ports, image tags (cluster bearer token required)",
  tags: ["move"],
  security: clusterSecurity,
}

export const response = inventorySchema

export default defineHandler(async ({ request, ctx }) => {
  await requireBearer(ctx, request)
  return serverInventory(ctx)
})
