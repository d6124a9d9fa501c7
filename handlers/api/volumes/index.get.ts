import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { volumeRecord } from "#lib/engine/inventory.ts"
import { volumeSchema } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: { operationId: "listVolumes", summary: "List volumes", tags: ["volumes"] },
  response: v.array(volumeSchema),
  handler: async ({ ctx }) => (await ctx.engine.listVolumes()).map(volumeRecord),
})
