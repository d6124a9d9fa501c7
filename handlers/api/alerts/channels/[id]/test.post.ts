import { defineRoute } from "#lib/service/handler.ts"
import { channelParams, testResult } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "testAlertChannel",
    summary:
      "Send a test message to the channel now and answer how it went (the service's answer, without credentials)",
    tags: ["alerts"],
  },
  params: channelParams,
  response: testResult,
  handler: async ({ params, ctx }) => ctx.alerts.testChannel(params.id),
})
