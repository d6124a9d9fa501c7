import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema, password, userName } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "setUp",
    summary:
      "Create the first admin with the one-time setup token the service printed at start (local sign-in on, no admin yet); signs them in. The token works once",
    tags: ["auth"],
  },
  body: v.object({ token: v.pipe(v.string(), v.maxLength(256)), user: userName, password }),
  response: { 201: meSchema },
  handler: async ({ body, request, ctx, set }) => {
    ctx.auth.mark(request, { action: "setup", claimed: body.user })
    const identity = await ctx.auth.setup(body.token, body.user, body.password)
    set.headers["set-cookie"] = (await ctx.auth.startSession(identity, request)).cookie
    set.status = 201
    return me(identity, ctx.auth)
  },
})
