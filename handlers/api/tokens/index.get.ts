import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { tokenSchema } from "#lib/auth/schemas.ts"
import { caller } from "#lib/auth/caller.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listTokens",
    summary: "API tokens: the caller's own; an admin's, everyone's (or one user's with ?user=). Never a token's value",
    tags: ["auth"],
  },
  query: v.object({
    user: v.optional(v.pipe(v.string(), v.description("an admin lists this user's tokens"))),
  }),
  response: v.array(tokenSchema),
  handler: ({ query, request, ctx }) => {
    const me = caller(ctx.auth, request)
    return me.role === "admin" ? ctx.auth.tokens.list(query.user) : ctx.auth.tokens.list(me.user, me.source)
  },
})
