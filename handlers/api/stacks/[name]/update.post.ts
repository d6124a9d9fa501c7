import { defineHandler } from "../../../../lib/handler.ts"
import { stackName } from "../../../../lib/stack-name.ts"
import { stackView } from "../../../../lib/stack-state.ts"

export const detail = { summary: "Pull the stack's images, then bring it up (no version is added)", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.up(name, { pull: true })
  return stackView(ctx.stacks, ctx.engine, name)
})
