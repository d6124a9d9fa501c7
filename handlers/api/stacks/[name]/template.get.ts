import { statusSchema } from "#lib/catalog/schemas.ts"
import { isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "stackTemplate",
    summary:
      "The template a stack was installed from and whether its source has a newer version: the compose diff from the stack's file to the template's, whether the stack's file was edited here since, and new variables. 404 no_template for a stack not installed from one",
    tags: ["catalog", "stacks"],
  },
  params: stackParams,
  response: statusSchema,
  handler: async ({ params, ctx, request }) => ctx.catalog.status(params.name, isAdmin(ctx.auth, request)),
})
