import * as v from "valibot"
import { engineRef } from "#lib/engine/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { archiveResponse } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { pathQuery } from "#lib/files/schemas.ts"
import { tarStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "downloadContainerArchive",
    summary:
      "A file or a folder of the container's files with everything below it, as an uncompressed tar named after it",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: pathQuery,
  response: tarStream("the path's entries, named from its last name"),
  handler: async ({ params, query, request, ctx }) =>
    archiveResponse(await ctx.files.container(params.id), parsePath(query), request.signal),
})
