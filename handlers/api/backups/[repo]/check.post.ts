import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { repoNameSchema } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "checkBackupRepository",
  summary: "Run restic check on the repository now; its result is shown with the repository as last_check",
  tags: ["backups"],
}

export const params = v.object({ repo: repoNameSchema })
export const response = v.object({ time: v.string(), ok: v.boolean(), message: v.string() })

export const role = "operator"

export default defineHandler(async ({ params, request, ctx }) =>
  ctx.backups.check(params.repo, { signal: request.signal }),
)
