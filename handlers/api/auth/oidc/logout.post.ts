import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "oidcSignOut",
    summary:
      "Sign out of a single sign-on: ends the session, and answers the identity provider's end-session address to send the browser to (null when its discovery offers none)",
    tags: ["auth"],
  },
  response: v.object({ signed_out: v.boolean(), redirect: v.nullable(v.string()) }),
  handler: async ({ request, ctx, set }) => {
    const identity = ctx.auth.who(request)
    ctx.auth.mark(request, { action: "logout" })
    set.headers["set-cookie"] = (await ctx.auth.endSession(request)).cookie
    const redirect = identity?.source === "oidc" && ctx.oidc ? await ctx.oidc.endSessionUrl(request) : undefined
    return { signed_out: identity !== null, redirect: redirect ?? null }
  },
})
