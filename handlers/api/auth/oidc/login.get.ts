import { defineRoute } from "#lib/service/handler.ts"
import { oidcOf } from "#lib/auth/oidc.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "oidcSignIn",
    summary:
      "Single sign-on: redirects the browser to the identity provider (code flow with PKCE); 404 while SVC_AUTH does not name oidc",
    tags: ["auth"],
  },
  response: {
    302: {
      contentType: "*/*",
      description: "to the identity provider's authorization endpoint (Location), with the sign-in's cookie (hm_oidc)",
    },
  },
  handler: async ({ request, ctx }) => {
    const { location, cookie } = await oidcOf(ctx).begin(request)
    return new Response(null, { status: 302, headers: { location, "set-cookie": cookie, "cache-control": "no-store" } })
  },
})
