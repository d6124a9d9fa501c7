import { defineRoute } from "#lib/service/handler.ts"
import { muteInput, ruleParams, ruleView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "muteAlertRule",
    summary:
      "Mute an alert rule for some minutes (0 unmutes): its conditions are followed and nothing is sent, their recoveries neither",
    tags: ["alerts"],
  },
  params: ruleParams,
  body: muteInput,
  response: ruleView,
  handler: async ({ params, body, request, ctx }) =>
    ctx.alerts.mute(params.id, body.minutes, ctx.auth.who(request)?.stacks),
})
