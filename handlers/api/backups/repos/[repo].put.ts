import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { repoNameSchema, repoSettingsInput, repoView } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "editBackupRepository",
  summary:
    "Replace the repository's settings: its schedule, stacks, keep rules, hooks, check schedule and rclone configuration (a setting left out is removed); its repository string and password stay",
  tags: ["backups"],
}

export const params = v.object({ repo: repoNameSchema })
export const body = repoSettingsInput
export const response = repoView

export const role = "admin"

export default defineHandler<v.InferOutput<typeof body>>(async ({ params, body, ctx }) =>
  ctx.backups.editRepo(params.repo, body),
)
