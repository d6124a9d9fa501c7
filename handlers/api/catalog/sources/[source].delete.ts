import * as v from "valibot"
import { sourceParams } from "#lib/catalog/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeTemplateSource",
    summary: "Forget a template source and its copy; stacks installed from it keep running and keep their record",
    tags: ["catalog"],
  },
  params: sourceParams,
  response: v.object({ removed: v.string() }),
  handler: async ({ params, ctx }) => {
    await ctx.catalog.sources.remove(params.source)
    return { removed: params.source }
  },
})
