import { saveBody, savedSchema } from "#lib/catalog/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "saveStackAsTemplate",
    summary:
      "Save the stack as a template of the folder format in the `saved` source (201): its compose file and files, and a manifest whose variables are its environment; its secrets are left out and become variables generated at install, and so do literal values of secret-looking keys in its compose file. The answer holds the folder's files. 409 template_exists unless replace",
    tags: ["catalog", "stacks"],
  },
  params: stackParams,
  body: saveBody,
  response: { 201: savedSchema },
  handler: async ({ params, body, ctx, set }) => {
    set.status = 201
    return ctx.catalog.save(params.name, body)
  },
})
