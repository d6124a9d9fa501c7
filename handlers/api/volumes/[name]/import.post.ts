import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { badRequest } from "#lib/http/http-error.ts"
import { flag } from "#lib/http/query.ts"
import { importVolume } from "#lib/volumes/transfer.ts"
import { volumeImportSchema, volumeParams } from "#lib/volumes/schemas.ts"

export const detail = {
  operationId: "importVolume",
  summary:
    "Unpack a tar body into the volume, created if absent; a volume holding data needs ?force=true (cluster bearer token required)",
  tags: ["move"],
}
export const accepts = ["application/x-tar"]
export const query = v.object({ force: v.optional(flag) })

export const params = volumeParams
export const response = { 200: volumeImportSchema, 201: volumeImportSchema }

export const access = "cluster"

export const role = "admin"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, request, ctx, set }) => {
  const { name } = params
  if (!request.body) throw badRequest("the body must be a tar archive", "missing_body")
  const result = await importVolume(ctx.engine, ctx.config.transferImage, name, request.body, query.force ?? false)
  if (result.created) set.status = 201
  return result
})
