import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "removeTotp",
    summary:
      "Remove your authenticator app; your other sessions end. 409 factor_required while SVC_AUTH_MFA requires a factor of you",
    tags: ["auth"],
  },
  response: v.object({ removed: v.literal(true) }),
  handler: ({ request, ctx }) => {
    const who = ctx.auth.enrollee(request)
    ctx.auth.mark(request, { action: "mfa.totp.remove" })
    const f = ctx.auth.factors.get(who.user)
    if (!f.totp) throw notFound("no authenticator app is set up", "totp_not_found")
    ctx.auth.keepAFactor(who)
    ctx.auth.factors.removeTotp(who.user)
    ctx.auth.endOtherSessions(who.user, request)
    return { removed: true as const }
  },
})
