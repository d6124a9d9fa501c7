import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { ruleParams } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "removeAlertRule",
  summary: "Remove an alert rule; its raised conditions end without a message",
  tags: ["alerts"],
}

export const params = ruleParams
export const response = v.object({ removed: v.string() })

export const role = "admin"

export default defineHandler<unknown, unknown, v.InferOutput<typeof params>>(async ({ params, ctx }) => {
  await ctx.alerts.removeRule(params.id)
  return { removed: params.id }
})
