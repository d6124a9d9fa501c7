import { defineHandler } from "../../../lib/handler.ts"
import { withImageStatus } from "../../../lib/image-status.ts"
import { imageRecord } from "../../../lib/inventory.ts"

export const detail = { summary: "List local images, each with its latest scan summary and update status", tags: ["images"] }

export default defineHandler(async ({ ctx }) => withImageStatus(ctx, (await ctx.engine.listImages()).map(imageRecord)))
