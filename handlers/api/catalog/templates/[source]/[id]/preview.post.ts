import { installBody, previewSchema, templateParams } from "#lib/catalog/schemas.ts"
import { isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "previewTemplate",
    summary:
      "What installing a template as stack `name` would do, changing nothing: its compose file, the environment with the values given (secrets never shown; generated ones marked), what the guard says (compose's model: services, images, ports, volumes, binds; or why it refuses), warnings, blockers, the update policy and backup schedule it would set, and the note. 400 invalid_values with `fields` naming each wrong value",
    tags: ["catalog"],
  },
  params: templateParams,
  body: installBody,
  response: previewSchema,
  handler: async ({ params, body, ctx, request }) => {
    const {
      env_values: _,
      content: __,
      t: ___,
      ...preview
    } = await ctx.catalog.preview(params.source, params.id, body, {
      admin: isAdmin(ctx.auth, request),
      signal: request.signal,
    })
    return preview
  },
})
