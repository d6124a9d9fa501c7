import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { userName } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "resetFactors",
    summary:
      "Reset a user's second factors (a lost phone): their authenticator app and recovery codes are removed and their sessions end; they sign in with the password alone, or are sent to enrol again when SVC_AUTH_MFA requires it. Audited as mfa.reset",
    tags: ["auth"],
  },
  params: v.object({ name: userName }),
  response: v.object({ reset: v.string() }),
  handler: ({ params, request, ctx }) => {
    ctx.auth.mark(request, { action: "mfa.reset" })
    ctx.auth.resetFactors(params.name)
    return { reset: params.name }
  },
})
