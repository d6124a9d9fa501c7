import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Delete an image, forcefully (its tags too, even when a stopped container uses it)", tags: ["images"] }

export default defineHandler(async ({ params, ctx }) => {
  const result = await ctx.engine.removeImage(params.id!, { force: true })
  return { id: params.id, untagged: result.flatMap((r) => r.Untagged ?? []), deleted: result.flatMap((r) => r.Deleted ?? []) }
})
