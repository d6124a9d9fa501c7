import { sourceParams, sourceSchema } from "#lib/catalog/schemas.ts"
import { sourceView } from "#lib/catalog/sources.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "refreshTemplateSource",
    summary:
      "Read a template source now (a read under way is joined): its status says whether it succeeded and why not; a failed read keeps the last good copy",
    tags: ["catalog"],
  },
  params: sourceParams,
  response: sourceSchema,
  handler: async ({ params, ctx, request }) => sourceView(await ctx.catalog.refresh(params.source, request.signal)),
})
