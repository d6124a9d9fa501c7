import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { policySchema } from "#lib/updates/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackPolicy",
    summary:
      "The stack's update policy {auto_update: off | notify | apply, schedule, watch}, when it last ran, and the last verdict",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.object({
    ...policySchema.entries,
    last_run: v.nullable(v.string()),
    last_verdict: v.nullable(
      v.object({ verdict: v.string(), reason: v.nullable(v.string()), finished_at: v.string() }),
    ),
  }),
  handler: async ({ params, ctx }) => {
    const { name } = params
    await ctx.stacks.read(name)
    const { policy, state } = await ctx.updateRecords.policyFile(name)
    const last = (await ctx.updateRecords.history(name))[0] ?? null
    return {
      stack: name,
      ...policy,
      last_run: state.last_run,
      last_verdict: last && { verdict: last.verdict, reason: last.reason, finished_at: last.finished_at },
    }
  },
})
