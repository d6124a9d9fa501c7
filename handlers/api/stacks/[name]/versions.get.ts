import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "The stack's versions, oldest first: number, time, action, whether current, what changed (key names only)", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const stack = await ctx.stacks.read(stackName(params.name))
  return stack.versions.map(({ version, time, action, changes }) => ({ version, time, action, current: version === stack.state.current_version, changes }))
})
