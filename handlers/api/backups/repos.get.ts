import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoView } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listBackupRepositories",
    summary: "The restic repositories this server backs up to (never their passwords)",
    tags: ["backups"],
  },
  response: v.array(repoView),
  handler: async ({ ctx }) => ctx.backups.repos(),
})
