import { defineRoute } from "#lib/service/handler.ts"
import { ruleInput, ruleView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "addAlertRule",
    summary:
      "Add an alert rule: what it watches (kind and its parameters), its scope (stacks, labels, nodes) and the channels it sends to",
    tags: ["alerts"],
  },
  body: ruleInput,
  response: { 201: ruleView },
  handler: async ({ body, ctx, set }) => {
    const rule = await ctx.alerts.addRule(body)
    set.status = 201
    return rule
  },
})
