import { defineRoute } from "#lib/service/handler.ts"
import { historyQuery, historyView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getAlertHistory",
    summary:
      "Each alert sent or given up, newest first, with its rule, channel, result, tries and time; `next` is the cursor of the page after",
    tags: ["alerts"],
  },
  query: historyQuery,
  response: historyView,
  handler: ({ query, request, ctx }) => {
    const stacks = ctx.auth.who(request)?.stacks
    return ctx.alerts.history(query, (stack) => !stacks || (stack !== null && stacks.includes(stack)))
  },
})
