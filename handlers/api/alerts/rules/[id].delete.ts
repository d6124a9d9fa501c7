import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { ruleParams } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeAlertRule",
    summary: "Remove an alert rule; its raised conditions end without a message",
    tags: ["alerts"],
  },
  params: ruleParams,
  response: v.object({ removed: v.string() }),
  handler: async ({ params, ctx }) => {
    await ctx.alerts.removeRule(params.id)
    return { removed: params.id }
  },
})
