import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { versionSchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listStackVersions",
    summary:
      "The stack's versions, oldest first: number, time, action, whether current, what changed (key names only), and the git commit it came from (a git stack's)",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.array(versionSchema),
  handler: async ({ params, ctx }) => {
    const stack = await ctx.stacks.read(params.name)
    return stack.versions.map(({ version, time, action, changes, commit }) => ({
      version,
      time,
      action,
      current: version === stack.state.current_version,
      changes,
      ...(commit ? { commit } : {}),
    }))
  },
})
