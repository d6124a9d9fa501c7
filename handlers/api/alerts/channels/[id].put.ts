import { defineRoute } from "#lib/service/handler.ts"
import { channelInput, channelParams, channelView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "editAlertChannel",
    summary:
      "Rename an alert channel, or replace its address whole (url, or kind with fields): a new address brings its credentials again",
    tags: ["alerts"],
  },
  params: channelParams,
  body: channelInput,
  response: channelView,
  handler: async ({ params, body, ctx }) => ctx.alerts.updateChannel(params.id, body),
})
