import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "upStack",
  summary: "Bring an imported stack up as it lies on disk, adding no version (cluster bearer token required)",
  tags: ["move"],
}

export const params = stackParams
export const response = stackSchema

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ params, request, ctx }) => ctx.verbs.up(params.name, { signal: request.signal }))
