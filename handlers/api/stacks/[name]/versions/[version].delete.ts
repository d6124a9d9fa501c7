import { defineHandler } from "../../../../../lib/handler.ts"
import { stackName } from "../../../../../lib/stack-name.ts"
import { versionNumber } from "../../../../../lib/stacks.ts"

export const detail = { summary: "Delete a version; the current one cannot be deleted (409)", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const version = versionNumber(params.version)
  await ctx.stacks.deleteVersion(stackName(params.name), version)
  return { deleted: version }
})
