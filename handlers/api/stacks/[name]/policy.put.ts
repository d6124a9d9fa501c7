import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { policyBody, type PolicyInput } from "#lib/updates/records.ts"

export const body = policyBody
export const detail = {
  summary: "Set the stack's update policy: auto_update off | notify | apply, schedule (an interval such as 6h, or a cron expression; null follows SVC_UPDATE_INTERVAL), watch (seconds; null follows SVC_UPDATE_WATCH)",
  tags: ["stacks"],
}

export default defineHandler<PolicyInput>(async ({ params, body, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.read(name)
  return { stack: name, ...(await ctx.updateRecords.setPolicy(name, body)) }
})
