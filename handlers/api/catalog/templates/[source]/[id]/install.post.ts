import { installBody, installResult, templateParams } from "#lib/catalog/schemas.ts"
import { checkCreatesStacks, isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "installTemplate",
    summary:
      "Install a template as a new stack `name` (201; dry_run: the preview, 200): checked by the same guard as any deploy, deployed as version 1 remembering the template and its version, then a guarded update policy (unless update_policy is false) and the app's backups in a repository's schedule (`backup`, the first repository when left out, null for none). The answer shows the generated secrets once. 409 stack_exists for a name taken; a caller limited to some stacks creates none",
    tags: ["catalog"],
  },
  params: templateParams,
  body: installBody,
  response: { 200: installResult, 201: installResult },
  handler: async ({ params, body, ctx, request, set }) => {
    if (!body.dry_run) checkCreatesStacks(ctx.auth, request)
    const result = await ctx.catalog.install(params.source, params.id, body, {
      admin: isAdmin(ctx.auth, request),
      by: ctx.auth.who(request)?.user,
      signal: request.signal,
    })
    set.status = result.dry_run ? 200 : 201
    return result
  },
})
