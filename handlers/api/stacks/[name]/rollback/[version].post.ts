import { defineHandler } from "../../../../../lib/handler.ts"
import { stackName } from "../../../../../lib/stack-name.ts"
import { stackView } from "../../../../../lib/stack-state.ts"
import { versionNumber } from "../../../../../lib/stacks.ts"

export const detail = { summary: "Redeploy the compose file and environment of a version, which becomes current (no version is added)", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.rollback(name, versionNumber(params.version))
  return stackView(ctx.stacks, ctx.engine, name)
})
