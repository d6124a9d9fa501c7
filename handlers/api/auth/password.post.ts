import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { password } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "changeOwnPassword",
    summary:
      "Change your own password (a local user signed in with a session), giving the current one (403 wrong_password; counted as sign-in attempts, 429 past them): your other sessions and your API tokens end, this session stays",
    tags: ["auth"],
  },
  body: v.object({ current: password, password }),
  response: v.object({ changed: v.boolean() }),
  handler: async ({ body, request, ctx }) => {
    ctx.auth.mark(request, { action: "password.change" })
    await ctx.auth.changePassword(request, body.current, body.password)
    return { changed: true }
  },
})
