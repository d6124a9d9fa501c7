import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema, password } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "signIn",
    summary:
      "Sign in as a local user: sets the session cookie; 401 for a wrong user or password, 429 (Retry-After) after too many attempts",
    tags: ["auth"],
  },
  body: v.object({ user: v.pipe(v.string(), v.maxLength(64)), password }),
  response: meSchema,
  handler: async ({ body, request, ctx, peer, set }) => {
    const { identity, cookie } = await ctx.auth.login(body.user, body.password, request, peer)
    set.headers["set-cookie"] = cookie
    return me(identity, ctx.auth.config.modes)
  },
})
