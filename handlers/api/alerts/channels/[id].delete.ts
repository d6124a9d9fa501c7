import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { channelParams } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "removeAlertChannel",
  summary: "Remove an alert channel with its pending alerts (409 while a rule sends to it)",
  tags: ["alerts"],
}

export const params = channelParams
export const response = v.object({ removed: v.string() })

export const role = "admin"

export default defineHandler<unknown, unknown, v.InferOutput<typeof params>>(async ({ params, ctx }) => {
  await ctx.alerts.removeChannel(params.id)
  return { removed: params.id }
})
