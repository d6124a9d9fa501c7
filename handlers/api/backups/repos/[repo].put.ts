import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoNameSchema, repoSettingsInput, repoView } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "editBackupRepository",
    summary:
      "Replace the repository's settings: its schedule, stacks, keep rules, hooks, check schedule and rclone configuration (a setting left out is removed); its repository string and password stay",
    tags: ["backups"],
  },
  params: v.object({ repo: repoNameSchema }),
  body: repoSettingsInput,
  response: repoView,
  handler: async ({ params, body, ctx }) => ctx.backups.editRepo(params.repo, body),
})
