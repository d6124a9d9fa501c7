import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { ruleParams, ruleUpdate, ruleView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "editAlertRule",
  summary:
    "Change an alert rule's name, parameters, scope or channels (a field left out stays; its kind cannot change)",
  tags: ["alerts"],
}

export const params = ruleParams
export const body = ruleUpdate
export const response = ruleView

export const role = "admin"

export default defineHandler<v.InferOutput<typeof body>, unknown, v.InferOutput<typeof params>>(
  async ({ params, body, ctx }) => ctx.alerts.updateRule(params.id, body),
)
