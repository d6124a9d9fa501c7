import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "upStack",
    summary: "Bring an imported stack up as it lies on disk, adding no version (cluster bearer token required)",
    tags: ["move"],
  },
  params: stackParams,
  response: stackSchema,
  handler: async ({ params, request, ctx }) => ctx.verbs.up(params.name, { signal: request.signal }),
})
