import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { containerDiff } from "#lib/files/container.ts"
import { changesSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "containerChanges",
    summary:
      "What changed in the container's filesystem against its image: each path modified, added or deleted, sorted",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  response: changesSchema,
  handler: async ({ params, ctx }) => {
    const { Id } = await ctx.engine.inspectContainer(params.id)
    return containerDiff(ctx.engine, Id)
  },
})
