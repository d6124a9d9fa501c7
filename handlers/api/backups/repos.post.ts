import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { repoInput, repoView } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "addBackupRepository",
  summary:
    "Add a restic repository once restic opened it with the password (init: create it first); 409 for a refused password",
  tags: ["backups"],
}

export const body = repoInput
export const response = { 201: repoView }

export const role = "admin"

export default defineHandler<v.InferOutput<typeof body>>(async ({ body, request, ctx, set }) => {
  const repo = await ctx.backups.addRepo(body, { signal: request.signal })
  set.status = 201
  return repo
})
