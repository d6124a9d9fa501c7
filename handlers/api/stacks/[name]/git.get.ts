import { gitStatusSchema } from "#lib/git/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackGit",
    summary:
      "The stack's git source (no token, no webhook secret), the commit deployed, the remote's head now (ls-remote), whether they differ, the sync under way (what it deploys, whether another waits), and the last sync's time, verdict and error",
    tags: ["git"],
  },
  params: stackParams,
  response: gitStatusSchema,
  handler: ({ params, request, ctx }) => ctx.git.status(params.name, request.signal),
})
