import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { registryView } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "listRegistries",
    summary: "The private registries this server keeps credentials for (never their passwords)",
    tags: ["registries"],
  },
  response: v.array(registryView),
  handler: async ({ ctx }) => ctx.registries.list(),
})
