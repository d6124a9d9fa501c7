import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"
import { clusterSecurity } from "#lib/cluster/schemas.ts"

export const detail = { operationId: "upStack", summary: "Bring an imported stack up as it lies on disk, adding no version (cluster bearer token required)", tags: ["move"], security: clusterSecurity }

export const params = stackParams
export const response = stackSchema

export default defineHandler(async ({ params, request, ctx }) => {
  await requireBearer(ctx, request)
  const { name } = params
  await ctx.stacks.up(name)
  return stackView(ctx.stacks, ctx.engine, name)
})
