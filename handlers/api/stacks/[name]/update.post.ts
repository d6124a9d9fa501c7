import * as v from "valibot"
import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"
import { watchBody } from "#lib/updates/watch-body.ts"

export const detail = {
  summary:
    "Guarded update: pin the running images by digest, pull, and when an image moved bring the stack up and watch its health for `watch` seconds (default SVC_UPDATE_WATCH); a failed watch rolls back to the pinned images without pulling. Answers the stack with `update`: {verdict: updated | rolled_back | rollback_failed | unchanged, reason, fix, images, ...}",
  tags: ["stacks"],
}
export const body = watchBody

export default defineHandler<v.InferOutput<typeof body>>(async ({ params, body, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.read(name)
  const update = await ctx.guard.update(name, { watch: body.watch })
  return { ...(await stackView(ctx.stacks, ctx.engine, name)), update }
})
