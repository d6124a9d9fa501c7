import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { muteInput, ruleParams, ruleView } from "#lib/alerts/schemas.ts"

export const detail = {
  operationId: "muteAlertRule",
  summary:
    "Mute an alert rule for some minutes (0 unmutes): its conditions are followed and nothing is sent, their recoveries neither",
  tags: ["alerts"],
}

export const params = ruleParams
export const body = muteInput
export const response = ruleView

export const role = "operator"

export default defineHandler<v.InferOutput<typeof body>, unknown, v.InferOutput<typeof params>>(
  async ({ params, body, request, ctx }) => ctx.alerts.mute(params.id, body.minutes, ctx.auth.who(request)?.stacks),
)
