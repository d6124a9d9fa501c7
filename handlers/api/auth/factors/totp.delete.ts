import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"
import { proofSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "removeTotp",
    summary:
      "Remove your authenticator app, giving your password or a current code of it (400 proof_required, 403 wrong_password or wrong_code, counted as failed sign-ins); your other sessions end. 409 factor_required for the last factor while SVC_AUTH_MFA requires one. Audited as mfa.totp.remove",
    tags: ["auth"],
  },
  body: proofSchema,
  response: v.object({ removed: v.literal(true) }),
  handler: async ({ body, request, ctx }) => {
    const who = ctx.auth.enrollee(request)
    ctx.auth.mark(request, { action: "mfa.totp.remove" })
    const f = ctx.auth.factors.get(who.user)
    if (!f.totp) throw notFound("no authenticator app is set up", "totp_not_found")
    ctx.auth.keepAFactor(who)
    await ctx.auth.reauthenticate(request, who.user, body)
    ctx.auth.factors.removeTotp(who.user)
    ctx.auth.endOtherSessions(who.user, request)
    return { removed: true as const }
  },
})
