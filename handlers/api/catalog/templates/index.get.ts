import * as v from "valibot"
import { summary } from "#lib/catalog/catalog.ts"
import { templateSummary } from "#lib/catalog/schemas.ts"
import { isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listTemplates",
    summary:
      "The catalog's templates, from every source (or `source`): each with its title, description, categories, kind, version and its logo as this service serves it; `q` keeps those whose title, description or categories hold every word, `category` those of a category",
    tags: ["catalog"],
  },
  query: v.object({
    q: v.optional(v.pipe(v.string(), v.maxLength(200))),
    category: v.optional(v.pipe(v.string(), v.maxLength(40))),
    source: v.optional(v.pipe(v.string(), v.maxLength(63))),
  }),
  response: v.array(templateSummary),
  handler: async ({ query, ctx, request }) => {
    const words = (query.q ?? "").toLowerCase().split(/\s+/).filter(Boolean)
    return (await ctx.catalog.templates(isAdmin(ctx.auth, request), query.source))
      .filter(({ template: t }) => {
        const text = `${t.title} ${t.description} ${t.categories.join(" ")}`.toLowerCase()
        return words.every((w) => text.includes(w)) && (!query.category || t.categories.includes(query.category))
      })
      .map(({ source, template }) => summary(source, template))
  },
})
