import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { networkRecord } from "#lib/engine/inventory.ts"
import { networkSchema } from "#lib/engine/schemas.ts"

export const detail = { operationId: "listNetworks", summary: "List networks", tags: ["networks"] }

export const response = v.array(networkSchema)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => (await ctx.engine.listNetworks()).map(networkRecord))
