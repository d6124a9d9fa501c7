import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"
import { caller } from "#lib/auth/caller.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "revokeToken",
    summary:
      "Revoke an API token: your own, or anyone's as an admin; it stops working at once, and the WebSockets opened with it close",
    tags: ["auth"],
  },
  params: v.object({ id: v.pipe(v.string(), v.regex(/^[0-9a-f]{12}$/, "a token id is 12 hex digits")) }),
  response: v.object({ revoked: v.string() }),
  handler: ({ params, request, ctx }) => {
    const me = caller(ctx.auth, request)
    const found = ctx.auth.tokens.get(params.id)
    const yours = found && (me.role === "admin" || (found.user === me.user && found.source === me.source))
    if (!yours) throw notFound(`no token ${params.id} of yours`, "token_not_found")
    ctx.auth.revoke(params.id)
    return { revoked: params.id }
  },
})
