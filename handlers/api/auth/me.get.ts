import { defineHandler } from "#lib/service/handler.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema } from "#lib/auth/schemas.ts"

export const detail = {
  operationId: "getMe",
  summary:
    "Who is signed in: user, role, source, stacks and the sign-in modes on; 401 (with `modes`) when nobody is; 404 while sign-in is off",
  tags: ["auth"],
}

export const response = meSchema

export const role = "public"

export default defineHandler(async ({ request, ctx }) => {
  const modes = [...ctx.auth.config.modes]
  if (!ctx.auth.enabled) throw new HttpError(404, "auth_off", "sign-in is off (SVC_AUTH)")
  const identity = ctx.auth.who(request)
  if (!identity) throw new HttpError(401, "unauthorized", "nobody is signed in", { body: { modes } })
  return me(identity, ctx.auth.config.modes)
})
