import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { tokenSchema } from "#lib/auth/schemas.ts"
import { caller } from "#lib/auth/caller.ts"

export const detail = {
  operationId: "listTokens",
  summary: "API tokens: the caller's own; an admin's, everyone's (or one user's with ?user=). Never a token's value",
  tags: ["auth"],
}

export const query = v.object({
  user: v.optional(v.pipe(v.string(), v.description("an admin lists this user's tokens"))),
})
export const response = v.array(tokenSchema)

export const role = "viewer"

export default defineHandler<unknown, v.InferOutput<typeof query>>(({ query, request, ctx }) => {
  const me = caller(ctx.auth, request)
  return me.role === "admin" ? ctx.auth.tokens.list(query.user) : ctx.auth.tokens.list(me.user, me.source)
})
