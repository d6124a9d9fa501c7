import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { channelView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listAlertChannels",
    summary: "The alert channels with their addresses masked and their delivery status (failing, pending, last error)",
    tags: ["alerts"],
  },
  response: v.array(channelView),
  handler: ({ ctx }) => ctx.alerts.channels(),
})
