import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { writeText } from "#lib/files/answers.ts"
import { textBody, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "writeVolumeText",
    summary:
      "Write a text file of the volume's files from the editor; with the version it was read at, refused (409 file_changed) when it changed since",
    tags: ["volumes"],
  },
  params: volumeParams,
  body: textBody,
  response: writtenSchema,
  handler: async ({ params, body, ctx }) => writeText(await ctx.files.volume(params.name), body),
})
