import { defineHandler } from "#lib/service/handler.ts"
import { importBody, type ImportBody } from "#lib/copy/export.ts"
import { importedStackSchema } from "#lib/copy/schemas.ts"

export const detail = {
  operationId: "importStack",
  summary:
    "Write a stack from its export JSON under `name` without starting it; 409 for a taken name or files present, 400 for a current_version missing from versions (cluster bearer token required)",
  tags: ["move"],
}
export const body = importBody

export const response = { 201: importedStackSchema }

export const access = "cluster"

export const role = "admin"

export default defineHandler<ImportBody>(async ({ body, ctx, set }) => {
  const imported = await ctx.verbs.import(body)
  set.status = 201
  return imported
})
