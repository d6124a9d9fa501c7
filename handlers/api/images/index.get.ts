import { defineHandler } from "#lib/http/handler.ts"
import { withImageStatus } from "#lib/images/status.ts"
import { imageRecord } from "#lib/engine/inventory.ts"

export const detail = { summary: "List local images, each with its latest scan summary and update status", tags: ["images"] }

export default defineHandler(async ({ ctx }) => withImageStatus(ctx, (await ctx.engine.listImages()).map(imageRecord)))
