import { defineHandler } from "../../../lib/handler.ts"
import { networkRecord } from "../../../lib/inventory.ts"

export const detail = { summary: "List networks", tags: ["networks"] }

export default defineHandler(async ({ ctx }) => (await ctx.engine.listNetworks()).map(networkRecord))
