import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoNameSchema } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "checkBackupRepository",
    summary: "Run restic check on the repository now; its result is shown with the repository as last_check",
    tags: ["backups"],
  },
  params: v.object({ repo: repoNameSchema }),
  response: v.object({ time: v.string(), ok: v.boolean(), message: v.string() }),
  handler: async ({ params, request, ctx }) => ctx.backups.check(params.repo, { signal: request.signal }),
})
