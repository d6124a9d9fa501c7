import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { updateOutcomeSchema } from "#lib/updates/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listStackUpdates",
    summary:
      "The stack's guarded updates, newest first (the last 50): verdict, reason, fix, images from and to, timings",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.object({ stack: v.string(), history: v.array(updateOutcomeSchema) }),
  handler: async ({ params, ctx }) => {
    const { name } = params
    await ctx.stacks.read(name)
    return { stack: name, history: await ctx.updateRecords.history(name) }
  },
})
