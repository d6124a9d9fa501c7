import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"
import { proofSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "removePasskey",
    summary:
      "Remove one of your passkeys, giving your password or a current code of your authenticator app (400 proof_required, 403 wrong_password or wrong_code, counted as failed sign-ins); your other sessions end. 409 factor_required for the last factor while SVC_AUTH_MFA requires one. Audited as mfa.passkey.remove",
    tags: ["auth"],
  },
  params: v.object({ id: v.pipe(v.string(), v.maxLength(1024)) }),
  body: proofSchema,
  response: v.object({ removed: v.string() }),
  handler: async ({ params, body, request, ctx }) => {
    const who = ctx.auth.enrollee(request)
    ctx.auth.mark(request, { action: "mfa.passkey.remove" })
    if (!ctx.auth.factors.passkeys(who.user).some((k) => k.id === params.id))
      throw notFound("you have no passkey with this id", "passkey_not_found")
    ctx.auth.keepAFactor(who)
    await ctx.auth.reauthenticate(request, who.user, body)
    ctx.auth.factors.removePasskey(who.user, params.id)
    ctx.auth.endOtherSessions(who.user, request)
    return { removed: params.id }
  },
})
