import { defineRoute } from "#lib/service/handler.ts"
import { refused } from "#lib/errors/errors.ts"
import { roleFor } from "#lib/auth/config.ts"
import { oidcOf } from "#lib/auth/oidc.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "oidcCallback",
    summary:
      "Where the identity provider sends the browser back: the code is exchanged and the ID token checked, the role claim mapped through SVC_AUTH_ROLE_MAP (403 when no rule gives a role), the session begun; redirects to the UI",
    tags: ["auth"],
  },
  response: { 302: { contentType: "*/*", description: "to the UI (Location: /), with the session cookie" } },
  handler: async ({ request, ctx }) => {
    ctx.auth.mark(request, { action: "login" })
    const { identity, cookie } = await oidcOf(ctx).finish(request)
    ctx.auth.mark(request, { claimed: identity.user })
    const role = roleFor(identity.groups, ctx.config.auth.roleMap)
    if (!role) throw refused(`user "${identity.user}" is in no group SVC_AUTH_ROLE_MAP gives a role`, "no_role")
    const session = await ctx.auth.startSession({ user: identity.user, role, source: "oidc" }, request)
    const headers = new Headers({ location: "/", "cache-control": "no-store" })
    headers.append("set-cookie", cookie)
    headers.append("set-cookie", session.cookie)
    return new Response(null, { status: 302, headers })
  },
})
