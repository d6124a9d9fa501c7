import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { networkRecord } from "#lib/engine/inventory.ts"
import { networkSchema } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: { operationId: "listNetworks", summary: "List networks", tags: ["networks"] },
  response: v.array(networkSchema),
  handler: async ({ ctx }) => (await ctx.engine.listNetworks()).map(networkRecord),
})
