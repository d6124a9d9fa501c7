import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { backupResultSchema, repoParams, runInput } from "#lib/backups/schemas.ts"

export const detail = { operationId: "backUpStack", summary: "Back up the stack now: its records (compose, files, environment, versions) and its named volumes' data, with what each piece added to the repository; hooks run around the snapshot (a dump first, the stack stopped during it); keep forgets and prunes older backups after", tags: ["backups"] }

export const params = repoParams
export const body = v.optional(runInput, {})
export const response = { 201: backupResultSchema }

export const role = "operator"

export default defineHandler<v.InferOutput<typeof body>>(async ({ params, body, request, ctx, set }) => {
  const result = await ctx.backups.backup(params.repo, params.stack, { signal: request.signal, keep: body.keep, hooks: body.hooks })
  set.status = 201
  return result
})
