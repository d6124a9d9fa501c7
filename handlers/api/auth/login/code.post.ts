import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "signInCode",
    summary:
      "The second step of a sign-in (with the hm_pending cookie of POST /api/auth/login): a code from the authenticator app (the step before, at or after now's, each usable once) or a recovery code (each usable once); sets the session cookie. 401 second_factor_failed for a wrong or used code, counted with the password's failures (429 past them); 401 no_pending_sign_in without a sign-in waiting",
    tags: ["auth"],
  },
  body: v.object({
    code: v.pipe(v.string(), v.maxLength(64), v.description("6 digits from the app, or a recovery code")),
  }),
  response: meSchema,
  handler: async ({ body, request, ctx, peer, set }) => {
    const { identity, cookie } = await ctx.auth.secondFactor(request, peer, body.code)
    set.headers["set-cookie"] = cookie
    return me(identity, ctx.auth)
  },
})
