import { serverInventory } from "#lib/copy/copy.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { inventorySchema } from "#lib/copy/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "getInventory",
    summary:
      "What a copy needs to know about this server: server_id, stack names, volume names, published ports, image tags (cluster bearer token required)",
    tags: ["move"],
  },
  response: inventorySchema,
  handler: async ({ ctx }) => serverInventory(ctx),
})
