import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { unpackBody } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { pathQuery, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "uploadVolumeArchive",
    summary:
      "Unpack a tar body into a folder of the volume's files: checked entry by entry, never outside the folder, no devices; all of it or none, never over an entry that is there",
    tags: ["volumes"],
  },
  params: volumeParams,
  query: pathQuery,
  accepts: ["application/x-tar"],
  response: { 201: writtenSchema },
  handler: async ({ params, query, request, ctx, set }) => {
    set.status = 201
    return unpackBody(await ctx.files.volume(params.name), parsePath(query), request, request.signal)
  },
})
