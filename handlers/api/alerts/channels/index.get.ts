import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { channelView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "listAlertChannels",
  summary: "The alert channels with their addresses masked and their delivery status (failing, pending, last error)",
  tags: ["alerts"],
}

export const response = v.array(channelView)

export const role = "viewer"

export default defineHandler(({ ctx }) => ctx.alerts.channels())
