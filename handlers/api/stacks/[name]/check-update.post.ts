import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackImageRefs } from "#lib/stacks/images.ts"
import { updateCheckSchema } from "#lib/images/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "checkStackUpdates",
    summary: "Ask each image's registry for the current digest of its tag and record which images have a newer version",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.object({
    stack: v.string(),
    update_available: v.boolean(),
    images: v.array(updateCheckSchema),
  }),
  handler: async ({ params, ctx }) => {
    const images = await ctx.imageUpdates.checkAll(
      await stackImageRefs(ctx.stacks, ctx.engine, params.name),
      params.name,
    )
    return { stack: params.name, update_available: images.some((i) => i.update_available), images }
  },
})
