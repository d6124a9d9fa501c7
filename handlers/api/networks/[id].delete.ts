import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef, removed } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "removeNetwork",
    summary: "Delete a network (409 while containers are attached)",
    tags: ["networks"],
  },
  params: v.object({ id: engineRef }),
  response: removed("id"),
  handler: async ({ params, ctx }) => {
    await ctx.engine.removeNetwork(params.id)
    return { id: params.id, removed: true }
  },
})
