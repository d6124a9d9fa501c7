import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackImageRefs } from "#lib/stacks/images.ts"
import { updateCheckSchema } from "#lib/images/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

export const detail = {
  operationId: "checkStackUpdates",
  summary: "Ask each image's registry for the current digest of its tag and record which images have a newer version",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.object({
  stack: v.string(),
  update_available: v.boolean(),
  images: v.array(updateCheckSchema),
})

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => {
  const images = await ctx.imageUpdates.checkAll(await stackImageRefs(ctx.stacks, ctx.engine, params.name), params.name)
  return { stack: params.name, update_available: images.some((i) => i.update_available), images }
})
