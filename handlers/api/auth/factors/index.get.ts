import { defineRoute } from "#lib/service/handler.ts"
import { factorsSchema } from "#lib/auth/schemas.ts"
import { factorsView } from "#lib/auth/factors.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "getFactors",
    summary:
      "Your second factors: whether an authenticator app is set up, your passkeys, how many recovery codes are left, and whether SVC_AUTH_MFA requires one. For a local user signed in with a session, or sent to enrol after the password",
    tags: ["auth"],
  },
  response: factorsSchema,
  handler: ({ request, ctx }) => {
    const who = ctx.auth.enrollee(request)
    return factorsView(
      who.user,
      ctx.auth.factors.get(who.user),
      ctx.auth.factors.passkeys(who.user),
      ctx.auth.mfaRequired(who.role),
    )
  },
})
