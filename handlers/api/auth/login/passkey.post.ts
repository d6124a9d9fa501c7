import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { me } from "#lib/auth/me.ts"
import { authenticationResponseSchema, meSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "signInPasskey",
    summary:
      "Sign in with a passkey, with what navigator.credentials.get() answered to POST /api/auth/login/passkey/options: the second step after the password (hm_pending cookie), or instead of it (a discoverable passkey that verified its user); sets the session cookie. 401 challenge_unknown (used, expired, never given), wrong_challenge, wrong_origin, passkey_unknown, passkey_refused, or passkey_counter (a counter that went backwards: audited as mfa.passkey.counter), counted with the password's failures (429 past them). Audited as login.passkey",
    tags: ["auth"],
  },
  body: v.object({ credential: authenticationResponseSchema }),
  response: meSchema,
  handler: async ({ body, request, ctx, peer, set }) => {
    const { identity, cookie } = await ctx.auth.passkeySignIn(request, peer, body.credential)
    set.headers["set-cookie"] = cookie
    return me(identity, ctx.auth)
  },
})
