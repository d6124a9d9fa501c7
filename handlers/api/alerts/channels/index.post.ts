import { defineRoute } from "#lib/service/handler.ts"
import { channelInput, channelView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "addAlertChannel",
    summary:
      "Add an alert channel from its service URL or from a kind's form fields; its credentials are kept and never shown again",
    tags: ["alerts"],
  },
  body: channelInput,
  response: { 201: channelView },
  handler: async ({ body, ctx, set }) => {
    const channel = await ctx.alerts.addChannel(body)
    set.status = 201
    return channel
  },
})
