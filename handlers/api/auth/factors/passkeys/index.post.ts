import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { passkeyName, passkeySchema, recoveryCodesSchema, registrationResponseSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "addPasskey",
    summary:
      "Register a passkey under a name with what navigator.credentials.create() made from POST /api/auth/factors/passkeys/options (400 challenge_unknown, wrong_challenge, wrong_origin or passkey_refused when it does not check out; 409 passkey_name_taken, passkey_exists). A first factor brings ten recovery codes, shown this once; your other sessions end; a sign-in sent to enrol begins its session (Set-Cookie). Audited as mfa.passkey.enrol",
    tags: ["auth"],
  },
  body: v.object({ name: passkeyName, credential: registrationResponseSchema }),
  response: { 201: v.object({ passkey: passkeySchema, recovery_codes: v.optional(recoveryCodesSchema) }) },
  handler: async ({ body, request, ctx, set }) => {
    const who = ctx.auth.enrollee(request)
    ctx.auth.mark(request, { action: "mfa.passkey.enrol" })
    const first = !ctx.auth.factors.has(who.user)
    const { id, name, created } = await ctx.auth.addPasskey(request, who, body.name, body.credential)
    const { cookie, recovery_codes } = await ctx.auth.enrolled(request, who, first)
    if (cookie) set.headers["set-cookie"] = cookie
    set.status = 201
    return { passkey: { id, name, created }, ...(recovery_codes && { recovery_codes }) }
  },
})
