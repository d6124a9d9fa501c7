import { defineHandler } from "#lib/service/handler.ts"
import { backupResultSchema, repoParams } from "#lib/backups/schemas.ts"

export const detail = { operationId: "backUpStack", summary: "Back up the stack now: its records (compose, files, environment, versions) and its named volumes' data, with what each piece added to the repository", tags: ["backups"] }

export const params = repoParams
export const response = { 201: backupResultSchema }

export const role = "operator"

export default defineHandler(async ({ params, request, ctx, set }) => {
  const result = await ctx.backups.backup(params.repo, params.stack, { signal: request.signal })
  set.status = 201
  return result
})
