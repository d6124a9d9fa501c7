import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema, password } from "#lib/auth/schemas.ts"

export const detail = {
  operationId: "signIn",
  summary:
    "Sign in as a local user: sets the session cookie; 401 for a wrong user or password, 429 (Retry-After) after too many attempts",
  tags: ["auth"],
}

export const body = v.object({ user: v.pipe(v.string(), v.maxLength(64)), password })
export const response = meSchema

export const role = "public"

export default defineHandler(async ({ body, request, ctx, peer, set }) => {
  const { identity, cookie } = await ctx.auth.login(body.user, body.password, request, peer)
  set.headers["set-cookie"] = cookie
  return me(identity, ctx.auth.config.modes)
})
