import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { caller } from "#lib/auth/caller.ts"
import { sessionSchema } from "#lib/auth/schemas.ts"
import { sessionView } from "#lib/auth/sessions.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listSessions",
    summary:
      "Signed-in sessions: the caller's own; an admin's, everyone's (or one user's with ?user=). Each with its device (from its User-Agent), address, creation and last use, and whether it is the caller's",
    tags: ["auth"],
  },
  query: v.object({
    user: v.optional(v.pipe(v.string(), v.description("an admin lists this user's sessions"))),
  }),
  response: v.array(sessionSchema),
  handler: ({ query, request, ctx }) => {
    const me = caller(ctx.auth, request)
    const current = ctx.auth.sessionKey(request)
    const all = ctx.auth.sessions.list(me.role === "admin" ? undefined : { user: me.user, source: me.source })
    return all.filter((s) => !query.user || s.user === query.user).map((s) => sessionView(s, current))
  },
})
