import * as v from "valibot"
import { containerDetail } from "#lib/engine/containers.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { containerDetailSchema, engineRef } from "#lib/engine/schemas.ts"
import { redactorFor } from "#lib/stacks/env.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getContainer",
    summary: "Inspect one container (its environment is not shown)",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  response: containerDetailSchema,
  handler: async ({ params, ctx }) =>
    containerDetail(await ctx.engine.inspectContainer(params.id), redactorFor(ctx.stacks)),
})
