import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flag } from "#lib/http/query.ts"
import { stackExportSchema } from "#lib/copy/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "exportStack",
    summary:
      "The whole stack as JSON: compose file, environment with secrets in the clear, versions, images, mount inventory; sizes=true measures each volume (cluster bearer token required)",
    tags: ["move"],
  },
  params: stackParams,
  query: v.object({ sizes: v.optional(flag) }),
  response: stackExportSchema,
  handler: async ({ params, query, ctx }) => ctx.verbs.export(params.name, { sizes: query.sizes ?? false }),
})
