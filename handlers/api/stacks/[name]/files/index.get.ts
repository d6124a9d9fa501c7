import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { fileEntrySchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listStackFiles",
    summary:
      "The stack's files besides its compose file, as [{path, size}] (size in bytes), sorted by path; its data (binds such as ./data) is not among them",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.array(fileEntrySchema),
  handler: async ({ params, ctx }) => {
    const stack = await ctx.stacks.read(params.name)
    return Object.keys(stack.files)
      .sort()
      .map((path) => ({ path, size: Buffer.byteLength(stack.files[path]!) }))
  },
})
