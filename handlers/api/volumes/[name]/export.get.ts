import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { exportVolume, volumeName } from "#lib/volumes/transfer.ts"

export const detail = {
  summary: "The volume's content as an uncompressed tar stream (cluster bearer token required)",
  tags: ["move"],
}

export default defineHandler(async ({ params, request, ctx }) => {
  await requireBearer(ctx, request)
  const tar = await exportVolume(ctx.engine, ctx.config.transferImage, volumeName(params.name))
  return new Response(tar, { headers: { "content-type": "application/x-tar" } })
})
