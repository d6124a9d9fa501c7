import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { conflict, invalid } from "#lib/errors/errors.ts"
import { recoveryCodesSchema } from "#lib/auth/schemas.ts"
import { matchStep } from "#lib/auth/totp.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "confirmTotp",
    summary:
      "Turn the authenticator app on with a code it shows (400 wrong_code otherwise; 409 no_enrolment without POST /api/auth/factors/totp before). A first factor brings ten recovery codes, shown this once; your other sessions end; a sign-in sent to enrol begins its session (Set-Cookie)",
    tags: ["auth"],
  },
  body: v.object({ code: v.pipe(v.string(), v.maxLength(16)) }),
  response: v.object({ enabled: v.literal(true), recovery_codes: v.optional(recoveryCodesSchema) }),
  handler: async ({ body, request, ctx, set }) => {
    const who = ctx.auth.enrollee(request)
    ctx.auth.mark(request, { action: "mfa.totp.enrol" })
    const secret = ctx.auth.pending.peek("totp", who.user)
    if (!secret) throw conflict("no authenticator app is being set up: start again", "no_enrolment")
    const step = matchStep(secret, body.code.trim(), ctx.now())
    if (step === undefined)
      throw invalid(
        "that is not the code the app shows now: check the phone's clock, and type the newest code",
        "wrong_code",
      )
    ctx.auth.pending.take("totp", who.user)
    const first = !ctx.auth.factors.has(who.user)
    ctx.auth.factors.setTotp(who.user, secret, step, ctx.now())
    const { cookie, recovery_codes } = await ctx.auth.enrolled(request, who, first)
    if (cookie) set.headers["set-cookie"] = cookie
    return { enabled: true as const, ...(recovery_codes && { recovery_codes }) }
  },
})
