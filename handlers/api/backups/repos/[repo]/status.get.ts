import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { repoNameSchema, stackStatusSchema } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "backupStatus",
    summary:
      "Each stack's newest backup of this server in the repository, its age, and whether it is older than the repository's schedule allows (overdue); every stack here and those with backups",
    tags: ["backups"],
  },
  params: v.object({ repo: repoNameSchema }),
  response: v.array(stackStatusSchema),
  handler: async ({ params, request, ctx }) => ctx.backups.status(params.repo, { signal: request.signal }),
})
