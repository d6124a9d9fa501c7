import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoNameSchema } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "backupServiceState",
    summary:
      "Back up the service's own state (its data directory but the stacks' folders, its secrets sealed) into the repository now; restored on a new machine with `restore-state`",
    tags: ["backups"],
  },
  params: v.object({ repo: repoNameSchema }),
  response: v.object({ snapshot: v.string(), bytes: v.number(), added: v.number() }),
  handler: async ({ params, request, ctx, set }) => {
    set.status = 201
    return ctx.backups.backupState(params.repo, { signal: request.signal })
  },
})
