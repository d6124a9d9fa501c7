import { defineHandler } from "#lib/http/handler.ts"
import { networkRecord } from "#lib/engine/inventory.ts"

export const detail = { summary: "List networks", tags: ["networks"] }

export default defineHandler(async ({ ctx }) => (await ctx.engine.listNetworks()).map(networkRecord))
