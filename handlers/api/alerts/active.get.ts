import { defineRoute } from "#lib/service/handler.ts"
import { visibleTo } from "#lib/auth/identity.ts"
import { activeView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getActiveAlerts",
    summary: "The conditions raised now and not ended: each with its rule, since when and how many times it came",
    tags: ["alerts"],
  },
  response: activeView,
  handler: async ({ request, ctx }) =>
    visibleTo(ctx.auth.who(request), await ctx.alerts.active(), (c) => c.stack ?? undefined),
})
