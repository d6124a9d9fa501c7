import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { policyBody } from "#lib/updates/records.ts"
import { policySchema } from "#lib/updates/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "setStackPolicy",
    summary:
      "Set the stack's update policy: auto_update off | notify | apply, schedule (an interval such as 6h, or a cron expression; null follows SVC_UPDATE_INTERVAL), watch (seconds; null follows SVC_UPDATE_WATCH)",
    tags: ["stacks"],
  },
  params: stackParams,
  body: policyBody,
  response: policySchema,
  handler: async ({ params, body, ctx }) => {
    const { name } = params
    await ctx.stacks.read(name)
    return { stack: name, ...(await ctx.updateRecords.setPolicy(name, body)) }
  },
})
