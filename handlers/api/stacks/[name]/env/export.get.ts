import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "The environment with secrets in the clear; needs Authorization: Bearer <cluster token>", tags: ["stacks"] }

export default defineHandler(async ({ params, request, ctx }) => {
  await requireBearer(ctx, request)
  return (await ctx.stacks.read(stackName(params.name))).env
})
