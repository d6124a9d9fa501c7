import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"

export const detail = {
  operationId: "signOut",
  summary: "Sign out: ends the session and clears its cookie",
  tags: ["auth"],
}

export const response = v.object({ signed_out: v.boolean() })

export const role = "public"

export default defineHandler(async ({ request, ctx, set }) => {
  const signedIn = ctx.auth.who(request) !== null
  ctx.auth.mark(request, { action: "logout" })
  set.headers["set-cookie"] = (await ctx.auth.endSession(request)).cookie
  return { signed_out: signedIn }
})
