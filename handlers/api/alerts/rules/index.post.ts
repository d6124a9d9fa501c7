import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { ruleInput, ruleView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "addAlertRule",
  summary:
    "Add an alert rule: what it watches (kind and its parameters), its scope (stacks, labels, nodes) and the channels it sends to",
  tags: ["alerts"],
}

export const body = ruleInput
export const response = { 201: ruleView }

export const role = "admin"

export default defineHandler<v.InferOutput<typeof body>>(async ({ body, ctx, set }) => {
  const rule = await ctx.alerts.addRule(body)
  set.status = 201
  return rule
})
