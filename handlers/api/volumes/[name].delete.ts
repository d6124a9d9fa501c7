import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { volumeParams } from "#lib/volumes/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "removeVolume",
    summary: "Delete a volume (409 while a container uses it)",
    tags: ["volumes"],
  },
  params: volumeParams,
  response: v.object({ name: v.string(), removed: v.literal(true) }),
  handler: async ({ params, ctx }) => {
    await ctx.engine.removeVolume(params.name)
    return { name: params.name, removed: true }
  },
})
