import * as v from "valibot"
import { engineRef } from "#lib/engine/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { writeText } from "#lib/files/answers.ts"
import { textBody, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "writeContainerText",
    summary:
      "Write a text file of the container's files from the editor; with the version it was read at, refused (409 file_changed) when it changed since",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  body: textBody,
  response: writtenSchema,
  handler: async ({ params, body, ctx }) => writeText(await ctx.files.container(params.id), body),
})
