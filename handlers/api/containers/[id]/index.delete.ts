import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { engineRef, removed } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "removeContainer",
    summary: "Delete a container; force=true removes a running one, volumes=true its anonymous volumes",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: v.object({
    force: v.optional(flagFor("also remove it when it is running")),
    volumes: v.optional(flagFor("also remove its anonymous volumes")),
  }),
  response: removed("id"),
  handler: async ({ params, query, ctx }) => {
    await ctx.engine.removeContainer(params.id, { force: query.force ?? false, volumes: query.volumes ?? false })
    return { id: params.id, removed: true }
  },
})
