import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "removeImage",
    summary: "Delete an image, forcefully (its tags too, even when a stopped container uses it)",
    tags: ["images"],
  },
  params: v.object({ id: engineRef }),
  response: v.object({ id: v.string(), untagged: v.array(v.string()), deleted: v.array(v.string()) }),
  handler: async ({ params, ctx }) => {
    const result = await ctx.engine.removeImage(params.id, { force: true })
    return {
      id: params.id,
      untagged: result.flatMap((r) => r.Untagged ?? []),
      deleted: result.flatMap((r) => r.Deleted ?? []),
    }
  },
})
