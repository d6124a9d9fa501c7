import { defineRoute } from "#lib/service/handler.ts"
import { registryParams, registryView } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "getRegistry",
    summary: "One kept registry (never its password)",
    tags: ["registries"],
  },
  params: registryParams,
  response: registryView,
  handler: async ({ params, ctx }) => ctx.registries.get(params.name),
})
