import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"
import { caller } from "#lib/auth/caller.ts"
import { listedId } from "#lib/auth/sessions.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "endSession",
    summary:
      "End a session: your own (any of them), or anyone's as an admin; its cookie stops working at once, and the event streams and WebSockets opened with it close",
    tags: ["auth"],
  },
  params: v.object({ id: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/, "a session id is 16 hex digits")) }),
  response: v.object({ ended: v.string() }),
  handler: ({ params, request, ctx }) => {
    const me = caller(ctx.auth, request)
    ctx.auth.mark(request, { action: "session.end" })
    const found = ctx.auth.sessions
      .list(me.role === "admin" ? undefined : { user: me.user, source: me.source })
      .find((s) => listedId(s.key) === params.id)
    if (!found) throw notFound(`no session ${params.id} of yours`, "session_not_found")
    ctx.auth.endSessionKey(found.key)
    return { ended: params.id }
  },
})
