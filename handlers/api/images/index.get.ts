import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { withImageStatus } from "#lib/images/status.ts"
import { imageRecord } from "#lib/engine/inventory.ts"
import { imageWithStatusSchema } from "#lib/images/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listImages",
    summary: "List local images, each with its latest scan summary and update status",
    tags: ["images"],
  },
  response: v.array(imageWithStatusSchema),
  handler: async ({ ctx }) => withImageStatus(ctx, (await ctx.engine.listImages()).map(imageRecord)),
})
