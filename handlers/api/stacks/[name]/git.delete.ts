import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "deleteStackGit",
    summary: "Detach the stack from git (its source, token and webhook secret forgotten); it keeps running as it is",
    tags: ["git"],
  },
  params: stackParams,
  response: v.object({ detached: v.string() }),
  handler: async ({ params, ctx }) => {
    await ctx.git.detach(params.name)
    return { detached: params.name }
  },
})
