import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { versionNumber } from "#lib/stacks/store.ts"

export const detail = { summary: "Delete a version; the current one cannot be deleted (409)", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const version = versionNumber(params.version)
  await ctx.stacks.deleteVersion(stackName(params.name), version)
  return { deleted: version }
})
