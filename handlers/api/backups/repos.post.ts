import { defineRoute } from "#lib/service/handler.ts"
import { repoInput, repoView } from "#lib/backups/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "addBackupRepository",
    summary:
      "Add a restic repository once restic opened it with the password (init: create it first); 409 for a refused password",
    tags: ["backups"],
  },
  body: repoInput,
  response: { 201: repoView },
  handler: async ({ body, request, ctx, set }) => {
    const repo = await ctx.backups.addRepo(body, { signal: request.signal })
    set.status = 201
    return repo
  },
})
