import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { channelParams } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeAlertChannel",
    summary: "Remove an alert channel with its pending alerts (409 while a rule sends to it)",
    tags: ["alerts"],
  },
  params: channelParams,
  response: v.object({ removed: v.string() }),
  handler: async ({ params, ctx }) => {
    await ctx.alerts.removeChannel(params.id)
    return { removed: params.id }
  },
})
