import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { eventSchema } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: { operationId: "listEvents", summary: "The last 100 events, oldest first", tags: ["system"] },
  response: v.array(eventSchema),
  handler: async ({ ctx }) => ctx.events.history(),
})
