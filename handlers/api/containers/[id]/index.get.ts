import * as v from "valibot"
import { containerDetail } from "#lib/engine/containers.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { containerDetailSchema, engineRef } from "#lib/engine/schemas.ts"
import { redactorFor } from "#lib/stacks/env.ts"

export const detail = {
  operationId: "getContainer",
  summary: "Inspect one container (its environment is not shown)",
  tags: ["containers"],
}

export const params = v.object({ id: engineRef })
export const response = containerDetailSchema

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) =>
  containerDetail(await ctx.engine.inspectContainer(params.id), redactorFor(ctx.stacks)),
)
