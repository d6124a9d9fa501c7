import { defineHandler } from "../../../lib/handler.ts"
import { imageRecord } from "../../../lib/inventory.ts"

export const detail = { summary: "List local images", tags: ["images"] }

export default defineHandler(async ({ ctx }) => (await ctx.engine.listImages()).map(imageRecord))
