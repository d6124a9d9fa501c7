import { defineRoute } from "#lib/service/handler.ts"
import { registryEdit, registryParams, registryView } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "editRegistry",
    summary:
      "Replace a registry's address, user name, CA and insecure flag; a password left out stays, unless the host or the scheme changes (400: give it again)",
    tags: ["registries"],
  },
  params: registryParams,
  body: registryEdit,
  response: registryView,
  handler: async ({ params, body, ctx }) => ctx.registries.edit(params.name, body),
})
