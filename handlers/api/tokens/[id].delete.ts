import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { caller } from "#lib/auth/caller.ts"

export const detail = {
  operationId: "revokeToken",
  summary:
    "Revoke an API token: your own, or anyone's as an admin; it stops working at once, and the WebSockets opened with it close",
  tags: ["auth"],
}

export const params = v.object({ id: v.pipe(v.string(), v.regex(/^[0-9a-f]{12}$/, "a token id is 12 hex digits")) })
export const response = v.object({ revoked: v.string() })

export const role = "viewer"

export default defineHandler(({ params, request, ctx }) => {
  const me = caller(ctx.auth, request)
  const found = ctx.auth.tokens.get(params.id)
  const yours = found && (me.role === "admin" || (found.user === me.user && found.source === me.source))
  if (!yours) throw new HttpError(404, "token_not_found", `no token ${params.id} of yours`)
  ctx.auth.revoke(params.id)
  return { revoked: params.id }
})
