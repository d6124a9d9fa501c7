import { defineHandler } from "#lib/service/handler.ts"
import { exportVolume } from "#lib/volumes/transfer.ts"
import { volumeParams } from "#lib/volumes/schemas.ts"
import { tarStream } from "#lib/http/schemas.ts"

export const detail = {
  operationId: "exportVolume",
  summary: "The volume's content as an uncompressed tar stream (cluster bearer token required)",
  tags: ["move"],
}

export const params = volumeParams
export const response = tarStream("the volume's files, uncompressed")

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ params, ctx }) => {
  const tar = await exportVolume(ctx.engine, ctx.config.transferImage, params.name)
  return new Response(tar, { headers: { "content-type": "application/x-tar" } })
})
