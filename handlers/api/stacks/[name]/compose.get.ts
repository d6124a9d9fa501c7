import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackCompose",
    summary: "The stack's compose file, as {name, content}",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.object({ name: v.string(), content: v.string() }),
  handler: async ({ params, ctx }) => {
    const stack = await ctx.stacks.read(params.name)
    return { name: stack.name, content: stack.compose }
  },
})
