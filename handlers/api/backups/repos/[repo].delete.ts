import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { repoNameSchema } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "removeBackupRepository",
  summary: "Forget the repository and its schedules on this server; its snapshots stay where they are",
  tags: ["backups"],
}

export const params = v.object({ repo: repoNameSchema })
export const response = v.object({ removed: v.string() })

export const role = "admin"

export default defineHandler(async ({ params, ctx }) => ({ removed: await ctx.backups.removeRepo(params.repo) }))
