import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "operator",
  detail: { operationId: "removeSavedTemplate", summary: "Remove a template saved here", tags: ["catalog"] },
  params: v.object({ id: v.pipe(v.string(), v.maxLength(63)) }),
  response: v.object({ removed: v.string() }),
  handler: async ({ params, ctx }) => {
    await ctx.catalog.removeSaved(params.id)
    return { removed: params.id }
  },
})
