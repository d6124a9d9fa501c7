import * as v from "valibot"
import { requireBearer } from "#lib/cluster/bearer.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envVarSchema } from "#lib/stacks/schemas.ts"
import { clusterSecurity } from "#lib/cluster/schemas.ts"

export const detail = { operationId: "exportStackEnv", summary: "The environment with secrets in the clear; needs Authorization: Bearer <cluster token>", tags: ["stacks"], security: clusterSecurity }

export const params = stackParams
export const response = v.array(envVarSchema)

export default defineHandler(async ({ params, request, ctx }) => {
  await requireBearer(ctx, request)
  return (await ctx.stacks.read(params.name)).env
})
