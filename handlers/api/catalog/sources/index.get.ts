import * as v from "valibot"
import { sourceView } from "#lib/catalog/sources.ts"
import { sourceSchema } from "#lib/catalog/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listTemplateSources",
    summary:
      "The template sources: the catalog shipped with the service (curated), the stacks saved as templates here (saved), and the lists an admin added, each with its last read (when, whether it succeeded and why not, how many templates) and when its shown copy was read; URLs with their credentials masked",
    tags: ["catalog"],
  },
  response: v.array(sourceSchema),
  handler: async ({ ctx }) => {
    const kept = (await ctx.catalog.sources.list()).map(sourceView)
    const own = await Promise.all(
      (["curated", "saved"] as const).map(async (name) => ({
        name,
        format: "folder" as const,
        url: null,
        git: null,
        local: false,
        schedule: "",
        added: "",
        last_read: null,
        last_good: null,
        built_in: true,
        templates: (await ctx.catalog.sources.templates(name)).length,
      })),
    )
    return [...own.map(({ templates: _, ...s }) => s), ...kept]
  },
})
