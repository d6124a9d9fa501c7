import { templateParams } from "#lib/catalog/schemas.ts"
import { isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "templateLogo",
    summary:
      "A template's logo, served by this service: its folder's own file, or its URL fetched once by the service (never from a private address unless its source is marked local) and cached; the browser asks no one else. 404 no_logo when there is none or it could not be fetched",
    tags: ["catalog"],
  },
  params: templateParams,
  response: { contentType: "*/*", description: "the image (PNG, JPEG, GIF, WebP, ICO or SVG)" },
  handler: async ({ params, ctx, request }) => {
    const { type, body } = await ctx.catalog.logo(params.source, params.id, isAdmin(ctx.auth, request))
    return new Response(body as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": type,
        "cache-control": "private, max-age=86400",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      },
    })
  },
})
