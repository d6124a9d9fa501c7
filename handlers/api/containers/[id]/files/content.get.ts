import * as v from "valibot"
import { engineRef } from "#lib/engine/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import * as s from "valibot"
import { fileResponse } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { pathFields } from "#lib/files/schemas.ts"
import { flagFor } from "#lib/http/query.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "readContainerFile",
    summary:
      "A file of the container's files, its bytes as they are (a link, a folder or a device is refused); ?download=true names it as an attachment",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: s.object({
    ...pathFields,
    download: s.optional(flagFor("send it as an attachment named after the file")),
  }),
  response: { contentType: "application/octet-stream", description: "the file's bytes" },
  handler: async ({ params, query, request, ctx }) =>
    fileResponse(await ctx.files.container(params.id), parsePath(query), query.download ?? false, request.signal),
})
