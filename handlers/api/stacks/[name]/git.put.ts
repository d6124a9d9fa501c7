import * as v from "valibot"
import { attachedSchema } from "#lib/git/schemas.ts"
import { gitInputSchema } from "#lib/git/source.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { createsStacks } from "#lib/auth/scope.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { watchSeconds } from "#lib/updates/watch-body.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "putStackGit",
    summary:
      "Attach a git source to the stack (or change it) and sync: repository URL (https, ssh, or a local path), ref, the compose file's path, push, token. A stack not here yet is created from the repository (201); a stack here without git is put under git only with `attach: true` (else 409 stack_exists: its files would be replaced by the repository's). The webhook secret is answered once, when it is new",
    tags: ["git"],
  },
  params: stackParams,
  body: v.object({
    ...gitInputSchema.entries,
    watch: watchSeconds,
    attach: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "put a stack that runs here without git under git (its compose file and files become the repository's)",
        ),
      ),
    ),
  }),
  response: { 200: attachedSchema, 201: attachedSchema },
  handler: async ({ params, body, request, ctx, set }) => {
    const { watch, attach, ...input } = body
    const mayCreate = createsStacks(ctx.auth.who(request))
    const attached = await ctx.git.attach(params.name, input, { watch, attach, mayCreate, signal: request.signal })
    if (attached.created) set.status = 201
    return attached
  },
})
