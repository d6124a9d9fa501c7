import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { channelParams, testResult } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "testAlertChannel",
  summary: "Send a test message to the channel now and answer how it went (the service's answer, without credentials)",
  tags: ["alerts"],
}

export const params = channelParams
export const response = testResult

export const role = "admin"

export default defineHandler<unknown, unknown, v.InferOutput<typeof params>>(async ({ params, ctx }) =>
  ctx.alerts.testChannel(params.id),
)
