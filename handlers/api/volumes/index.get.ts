import { defineHandler } from "#lib/http/handler.ts"
import { volumeRecord } from "#lib/engine/inventory.ts"

export const detail = { summary: "List volumes", tags: ["volumes"] }

export default defineHandler(async ({ ctx }) => (await ctx.engine.listVolumes()).map(volumeRecord))
