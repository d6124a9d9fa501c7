import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { backupSchema, repoParams } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "listStackBackups",
  summary:
    "The stack's backups of this server in the repository, newest first: run, version, time, the snapshot of each piece",
  tags: ["backups"],
}

export const params = repoParams
export const response = v.array(backupSchema)

export const role = "viewer"

export default defineHandler(async ({ params, request, ctx }) =>
  ctx.backups.backups(params.repo, params.stack, { signal: request.signal }),
)
