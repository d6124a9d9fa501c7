import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { conflict } from "#lib/errors/errors.ts"
import { recoveryCodesSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "newRecoveryCodes",
    summary:
      "Ten new recovery codes, shown this once; the ones before stop working. 409 no_factor without an authenticator app",
    tags: ["auth"],
  },
  response: v.object({ recovery_codes: recoveryCodesSchema }),
  handler: ({ request, ctx }) => {
    const who = ctx.auth.enrollee(request)
    ctx.auth.mark(request, { action: "mfa.recovery.new" })
    if (!ctx.auth.factors.has(who.user))
      throw conflict("recovery codes come with a second factor: set one up first", "no_factor")
    return { recovery_codes: ctx.auth.factors.newRecoveryCodes(who.user, ctx.now()) }
  },
})
