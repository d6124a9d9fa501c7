import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { historyQuery, historyView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "getAlertHistory",
  summary:
    "Each alert sent or given up, newest first, with its rule, channel, result, tries and time; `next` is the cursor of the page after",
  tags: ["alerts"],
}

export const query = historyQuery
export const response = historyView

export const role = "viewer"

export default defineHandler<unknown, v.InferOutput<typeof query>>(({ query, request, ctx }) => {
  const stacks = ctx.auth.who(request)?.stacks
  return ctx.alerts.history(query, (stack) => !stacks || (stack !== null && stacks.includes(stack)))
})
