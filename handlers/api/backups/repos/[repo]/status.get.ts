import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { repoNameSchema, stackStatusSchema } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "backupStatus",
  summary:
    "Each stack's newest backup of this server in the repository, its age, and whether it is older than the repository's schedule allows (overdue); every stack here and those with backups",
  tags: ["backups"],
}

export const params = v.object({ repo: repoNameSchema })
export const response = v.array(stackStatusSchema)

export const role = "viewer"

export default defineHandler(async ({ params, request, ctx }) =>
  ctx.backups.status(params.repo, { signal: request.signal }),
)
