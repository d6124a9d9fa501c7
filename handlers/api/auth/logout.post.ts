import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "signOut",
    summary: "Sign out: ends the session and clears its cookie",
    tags: ["auth"],
  },
  response: v.object({ signed_out: v.boolean() }),
  handler: async ({ request, ctx, set }) => {
    const signedIn = ctx.auth.who(request) !== null
    ctx.auth.mark(request, { action: "logout" })
    set.headers["set-cookie"] = (await ctx.auth.endSession(request)).cookie
    return { signed_out: signedIn }
  },
})
