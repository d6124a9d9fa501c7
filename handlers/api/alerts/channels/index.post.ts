import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { channelInput, channelView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "addAlertChannel",
  summary:
    "Add an alert channel from its service URL or from a kind's form fields; its credentials are kept and never shown again",
  tags: ["alerts"],
}

export const body = channelInput
export const response = { 201: channelView }

export const role = "admin"

export default defineHandler<v.InferOutput<typeof body>>(async ({ body, ctx, set }) => {
  const channel = await ctx.alerts.addChannel(body)
  set.status = 201
  return channel
})
