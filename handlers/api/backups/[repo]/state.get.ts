import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoNameSchema, stateBackupSchema } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "listStateBackups",
    summary: "The service's state backups in the repository (of every server), newest first",
    tags: ["backups"],
  },
  params: v.object({ repo: repoNameSchema }),
  response: v.array(stateBackupSchema),
  handler: async ({ params, request, ctx }) => ctx.backups.stateBackups(params.repo, { signal: request.signal }),
})
