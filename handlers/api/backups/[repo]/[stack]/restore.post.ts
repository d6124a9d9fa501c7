import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { checkCreatesStacks } from "#lib/auth/caller.ts"
import { repoParams, restoreBlockedSchema, restoreInput, restoreResultSchema } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "restoreStack",
    summary:
      "Restore a backup of the stack on this server or on a node of the registry (to), under its name or a new one; the copy's refusals (taken name, port in use, existing volume unless force) answer 409 with the plan; dry_run changes nothing",
    tags: ["backups"],
  },
  params: repoParams,
  body: v.optional(restoreInput, {}),
  response: { 200: restoreResultSchema, 201: restoreResultSchema, 409: restoreBlockedSchema },
  handler: async ({ params, body, request, ctx, set }) => {
    checkCreatesStacks(ctx.auth, request)
    const result = await ctx.backups.restore(params.repo, params.stack, body, { signal: request.signal })
    if (result.restored) set.status = 201
    return result
  },
})
