import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { writeBody } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { writeQuery, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "writeVolumeFile",
    summary:
      "Replace or create a file of the volume's files with the body, whole or not at all (owner and mode kept); ?version= refuses it when the file changed since",
    tags: ["volumes"],
  },
  params: volumeParams,
  query: writeQuery,
  /** Any body: the file's bytes, streamed. */
  accepts: ["*"],
  response: writtenSchema,
  handler: async ({ params, query, request, ctx }) =>
    writeBody(await ctx.files.volume(params.name), parsePath(query), request, query.version),
})
