import { defineRoute } from "#lib/service/handler.ts"
import { checkCreatesStacks } from "#lib/auth/caller.ts"
import { importBody } from "#lib/copy/export.ts"
import { importedStackSchema } from "#lib/copy/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "importStack",
    summary:
      "Write a stack from its export JSON under `name` without starting it; 409 for a taken name or files present, 400 for a current_version missing from versions (cluster bearer token required)",
    tags: ["move"],
  },
  body: importBody,
  response: { 201: importedStackSchema },
  handler: async ({ body, request, ctx, set }) => {
    checkCreatesStacks(ctx.auth, request)
    const imported = await ctx.verbs.import(body)
    set.status = 201
    return imported
  },
})
