import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { ruleView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "listAlertRules",
  summary: "The alert rules: what each watches, its scope, channels, whether it is muted and its conditions raised now",
  tags: ["alerts"],
}

export const response = v.array(ruleView)

export const role = "viewer"

export default defineHandler(({ ctx }) => ctx.alerts.rules())
