import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { registryParams } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeRegistry",
    summary: "Forget a registry and its password; its images are pulled anonymously from then on",
    tags: ["registries"],
  },
  params: registryParams,
  response: v.object({ removed: v.string() }),
  handler: async ({ params, ctx }) => {
    await ctx.registries.remove(params.name)
    return { removed: params.name }
  },
})
