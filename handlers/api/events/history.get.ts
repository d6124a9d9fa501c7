import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { eventSchema } from "#lib/engine/schemas.ts"

export const detail = { operationId: "listEvents", summary: "The last 100 events, oldest first", tags: ["system"] }

export const response = v.array(eventSchema)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => ctx.events.history())
