import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { backupSchema, repoParams } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listStackBackups",
    summary:
      "The stack's backups of this server in the repository, newest first: run, version, time, the snapshot of each piece",
    tags: ["backups"],
  },
  params: repoParams,
  response: v.array(backupSchema),
  handler: async ({ params, request, ctx }) =>
    ctx.backups.backups(params.repo, params.stack, { signal: request.signal }),
})
