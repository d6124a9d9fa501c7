import * as v from "valibot"
import { engineRef } from "#lib/engine/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { unpackBody } from "#lib/files/answers.ts"
import { parsePath } from "#lib/files/paths.ts"
import { pathQuery, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "uploadContainerArchive",
    summary:
      "Unpack a tar body into a folder of the container's files: received and checked whole first (never outside the folder, no devices), then unpacked over what is there",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: pathQuery,
  accepts: ["application/x-tar"],
  response: { 201: writtenSchema },
  handler: async ({ params, query, request, ctx, set }) => {
    set.status = 201
    return unpackBody(await ctx.files.container(params.id), parsePath(query), request, request.signal)
  },
})
