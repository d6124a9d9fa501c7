import { defineHandler } from "#lib/service/handler.ts"
import { visibleTo } from "#lib/auth/identity.ts"
import { activeView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "getActiveAlerts",
  summary: "The conditions raised now and not ended: each with its rule, since when and how many times it came",
  tags: ["alerts"],
}

export const response = activeView

export const role = "viewer"

export default defineHandler(async ({ request, ctx }) =>
  visibleTo(ctx.auth.who(request), await ctx.alerts.active(), (c) => c.stack ?? undefined),
)
