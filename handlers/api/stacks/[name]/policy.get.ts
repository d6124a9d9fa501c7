import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "The stack's update policy {auto_update: off | notify | apply, schedule, watch}, when it last ran, and the last verdict", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.read(name)
  const { policy, state } = await ctx.updateRecords.policyFile(name)
  const last = (await ctx.updateRecords.history(name))[0] ?? null
  return { stack: name, ...policy, last_run: state.last_run, last_verdict: last && { verdict: last.verdict, reason: last.reason, finished_at: last.finished_at } }
})
