import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoNameSchema } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeBackupRepository",
    summary: "Forget the repository and its schedules on this server; its snapshots stay where they are",
    tags: ["backups"],
  },
  params: v.object({ repo: repoNameSchema }),
  response: v.object({ removed: v.string() }),
  handler: async ({ params, ctx }) => ({ removed: await ctx.backups.removeRepo(params.repo) }),
})
