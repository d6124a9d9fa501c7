import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { listAnswer } from "#lib/files/answers.ts"
import { listingSchema, listQuery } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listVolumeFiles",
    summary:
      "A folder of the volume's files: entries (name, kind, size, mode, owner, modified time, a link's target) sorted, folders first, and paged",
    tags: ["volumes"],
  },
  params: volumeParams,
  query: listQuery,
  response: listingSchema,
  handler: async ({ params, query, request, ctx }) =>
    listAnswer(await ctx.files.volume(params.name), query, request.signal),
})
