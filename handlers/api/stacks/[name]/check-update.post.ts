import { defineHandler } from "#lib/http/handler.ts"
import { stackImageRefs } from "#lib/stacks/images.ts"

export const detail = { summary: "Ask each image's registry for the current digest of its tag and record which images have a newer version", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const images = await ctx.updates.checkAll(await stackImageRefs(ctx.stacks, ctx.engine, params.name!), params.name!)
  return { stack: params.name, update_available: images.some((i) => i.update_available), images }
})
