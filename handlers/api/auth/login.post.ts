import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema, password, pendingSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "signIn",
    summary:
      "Sign in as a local user: sets the session cookie; 202 with `next` when a second step follows (a code, or setting up a factor that SVC_AUTH_MFA requires), with a short-lived hm_pending cookie instead; 401 for a wrong user or password, 429 (Retry-After) after too many attempts",
    tags: ["auth"],
  },
  body: v.object({ user: v.pipe(v.string(), v.maxLength(64)), password }),
  response: { 200: meSchema, 202: pendingSchema },
  handler: async ({ body, request, ctx, peer, set }) => {
    const signIn = await ctx.auth.login(body.user, body.password, request, peer)
    set.headers["set-cookie"] = signIn.cookie
    if ("next" in signIn) {
      set.status = 202
      return { next: signIn.next, methods: signIn.methods }
    }
    return me(signIn.identity, ctx.auth)
  },
})
