import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "The stack's guarded updates, newest first (the last 50): verdict, reason, fix, images from and to, timings", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.read(name)
  return { stack: name, history: await ctx.updateRecords.history(name) }
})
