import * as v from "valibot"
import { engineRef } from "#lib/engine/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { listAnswer } from "#lib/files/answers.ts"
import { listingSchema, listQuery } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listContainerFiles",
    summary:
      "A folder of the container's files: entries (name, kind, size, mode, owner, modified time, a link's target) sorted, folders first, and paged",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: listQuery,
  response: listingSchema,
  handler: async ({ params, query, request, ctx }) =>
    listAnswer(await ctx.files.container(params.id), query, request.signal),
})
