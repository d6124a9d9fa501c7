import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { channelInput, channelParams, channelView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "editAlertChannel",
  summary:
    "Rename an alert channel, or replace its address whole (url, or kind with fields): a new address brings its credentials again",
  tags: ["alerts"],
}

export const params = channelParams
export const body = channelInput
export const response = channelView

export const role = "admin"

export default defineHandler<v.InferOutput<typeof body>, unknown, v.InferOutput<typeof params>>(
  async ({ params, body, ctx }) => ctx.alerts.updateChannel(params.id, body),
)
