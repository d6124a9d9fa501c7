import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { repoView } from "#lib/backups/schemas.ts"

export const detail = {
  operationId: "listBackupRepositories",
  summary: "The restic repositories this server backs up to (never their passwords)",
  tags: ["backups"],
}

export const response = v.array(repoView)

export const role = "viewer"

export default defineHandler(async ({ ctx }) => ctx.backups.repos())
