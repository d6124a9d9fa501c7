import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { textAnswer } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { pathQuery, textSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "readVolumeText",
    summary:
      "A text file of the volume's files for the editor: its text and the version a write is checked against (413 above 2 MiB, 415 when not UTF-8)",
    tags: ["volumes"],
  },
  params: volumeParams,
  query: pathQuery,
  response: textSchema,
  handler: async ({ params, query, ctx }) => textAnswer(await ctx.files.volume(params.name), parsePath(query)),
})
