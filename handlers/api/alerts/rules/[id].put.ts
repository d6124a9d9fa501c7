import { defineRoute } from "#lib/service/handler.ts"
import { ruleParams, ruleUpdate, ruleView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "editAlertRule",
    summary:
      "Change an alert rule's name, parameters, scope or channels (a field left out stays; its kind cannot change)",
    tags: ["alerts"],
  },
  params: ruleParams,
  body: ruleUpdate,
  response: ruleView,
  handler: async ({ params, body, ctx }) => ctx.alerts.updateRule(params.id, body),
})
