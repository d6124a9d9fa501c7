import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { ruleView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listAlertRules",
    summary:
      "The alert rules: what each watches, its scope, channels, whether it is muted and its conditions raised now",
    tags: ["alerts"],
  },
  response: v.array(ruleView),
  handler: ({ ctx }) => ctx.alerts.rules(),
})
