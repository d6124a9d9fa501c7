import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"

export const detail = { summary: "Bring an imported stack up as it lies on disk, adding no version (cluster bearer token required)", tags: ["move"] }

export default defineHandler(async ({ params, request, ctx }) => {
  await requireBearer(ctx, request)
  const name = stackName(params.name)
  await ctx.stacks.up(name)
  return stackView(ctx.stacks, ctx.engine, name)
})
