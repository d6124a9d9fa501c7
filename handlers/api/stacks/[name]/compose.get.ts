import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "The stack's compose file, as {name, content}", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const stack = await ctx.stacks.read(stackName(params.name))
  return { name: stack.name, content: stack.compose }
})
