import { detail } from "#lib/catalog/catalog.ts"
import { templateDetail, templateParams } from "#lib/catalog/schemas.ts"
import { isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getTemplate",
    summary:
      "One template: its variables (type, default, choices, whether each is a secret and generated at install), note, warnings, and its compose file, or the repository it is read from at preview",
    tags: ["catalog"],
  },
  params: templateParams,
  response: templateDetail,
  handler: async ({ params, ctx, request }) =>
    detail(params.source, await ctx.catalog.template(params.source, params.id, isAdmin(ctx.auth, request))),
})
