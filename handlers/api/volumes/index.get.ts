import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { volumeRecord } from "#lib/engine/inventory.ts"
import { volumeSchema } from "#lib/engine/schemas.ts"

export const detail = { operationId: "listVolumes", summary: "List volumes", tags: ["volumes"] }

export const response = v.array(volumeSchema)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => (await ctx.engine.listVolumes()).map(volumeRecord))
