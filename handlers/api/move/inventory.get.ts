import { serverInventory } from "#lib/copy/copy.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { inventorySchema } from "#lib/copy/schemas.ts"

export const detail = {
  operationId: "getInventory",
  summary:
    "What a copy needs to know about this server: server_id, stack names, volume names, published ports, image tags (cluster bearer token required)",
  tags: ["move"],
}

export const response = inventorySchema

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ ctx }) => serverInventory(ctx))
