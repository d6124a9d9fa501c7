import * as v from "valibot"
import { engineRef } from "#lib/engine/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { writeBody } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { writeQuery, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "writeContainerFile",
    summary:
      "Replace or create a file of the container's files with the body, whole or not at all (owner and mode kept); ?version= refuses it when the file changed since",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: writeQuery,
  /** Any body: the file's bytes, streamed. */
  accepts: ["*"],
  response: writtenSchema,
  handler: async ({ params, query, request, ctx }) =>
    writeBody(await ctx.files.container(params.id), parsePath(query), request, query.version),
})
