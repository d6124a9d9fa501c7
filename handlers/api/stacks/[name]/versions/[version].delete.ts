import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { versionParam } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "deleteStackVersion",
    summary: "Delete a version; the current one cannot be deleted (409)",
    tags: ["stacks"],
  },
  params: v.object({ name: stackNameSchema, version: versionParam }),
  response: v.object({ deleted: v.number() }),
  handler: async ({ params, ctx }) => ctx.verbs.deleteVersion(params.name, params.version),
})
