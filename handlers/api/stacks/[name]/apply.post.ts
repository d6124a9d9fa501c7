import { defineHandler } from "../../../../lib/handler.ts"
import { stackName } from "../../../../lib/stack-name.ts"
import { stackView } from "../../../../lib/stack-state.ts"

export const detail = { summary: "Redeploy with the stored environment, add a version, clear env_pending", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.apply(name)
  return stackView(ctx.stacks, ctx.engine, name)
})
