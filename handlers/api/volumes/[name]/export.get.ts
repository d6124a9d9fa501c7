import { defineRoute } from "#lib/service/handler.ts"
import { exportVolume } from "#lib/volumes/transfer.ts"
import { volumeParams } from "#lib/volumes/schemas.ts"
import { tarStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "exportVolume",
    summary: "The volume's content as an uncompressed tar stream (cluster bearer token required)",
    tags: ["move"],
  },
  params: volumeParams,
  response: tarStream("the volume's files, uncompressed"),
  handler: async ({ params, ctx }) => {
    const tar = await exportVolume(ctx.engine, ctx.config.transferImage, params.name)
    return new Response(tar, { headers: { "content-type": "application/x-tar" } })
  },
})
