import { requireBearer } from "#lib/cluster/bearer.ts"
import { serverInventory } from "#lib/copy/copy.ts"
import { defineHandler } from "#lib/http/handler.ts"

export const detail = {
  summary: "What a copy needs to know about this server: server_id, stack names, volume names, published ports, image tags (cluster bearer token required)",
  tags: ["move"],
}

export default defineHandler(async ({ request, ctx }) => {
  await requireBearer(ctx, request)
  return serverInventory(ctx)
})
