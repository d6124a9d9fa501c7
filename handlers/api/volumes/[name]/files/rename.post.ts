import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { renameAnswer } from "#lib/files/answers.ts"
import { renameBody, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "renameVolumeFile",
    summary: "Rename or move an entry of the volume's files (within the volume); 409 when the new path is taken",
    tags: ["volumes"],
  },
  params: volumeParams,
  body: renameBody,
  response: writtenSchema,
  handler: async ({ params, body, ctx }) => renameAnswer(await ctx.files.volume(params.name), body),
})
