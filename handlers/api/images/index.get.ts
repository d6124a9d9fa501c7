import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { withImageStatus } from "#lib/images/status.ts"
import { imageRecord } from "#lib/engine/inventory.ts"
import { imageWithStatusSchema } from "#lib/images/schemas.ts"

export const detail = {
  operationId: "listImages",
  summary: "List local images, each with its latest scan summary and update status",
  tags: ["images"],
}

export const response = v.array(imageWithStatusSchema)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => withImageStatus(ctx, (await ctx.engine.listImages()).map(imageRecord)))
