import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { invalid } from "#lib/errors/errors.ts"
import { flag } from "#lib/http/query.ts"
import { importVolume } from "#lib/volumes/transfer.ts"
import { volumeImportSchema, volumeParams } from "#lib/volumes/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "importVolume",
    summary:
      "Unpack a tar body into the volume, created if absent; a volume holding data needs ?force=true (cluster bearer token required)",
    tags: ["move"],
  },
  params: volumeParams,
  query: v.object({ force: v.optional(flag) }),
  accepts: ["application/x-tar"],
  response: { 200: volumeImportSchema, 201: volumeImportSchema },
  handler: async ({ params, query, request, ctx, set }) => {
    const { name } = params
    if (!request.body) throw invalid("the body must be a tar archive", "missing_body")
    const result = await importVolume(ctx.engine, ctx.config.transferImage, {
      volume: name,
      tar: request.body,
      force: query.force,
    })
    if (result.created) set.status = 201
    return result
  },
})
