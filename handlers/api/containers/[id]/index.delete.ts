import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { engineRef, removed } from "#lib/engine/schemas.ts"

export const query = v.object({
  force: v.optional(flagFor("also remove it when it is running")),
  volumes: v.optional(flagFor("also remove its anonymous volumes")),
})
export const detail = {
  operationId: "removeContainer",
  summary: "Delete a container; force=true removes a running one, volumes=true its anonymous volumes",
  tags: ["containers"],
}

export const params = v.object({ id: engineRef })
export const response = removed("id")

export const role = "operator"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, ctx }) => {
  await ctx.engine.removeContainer(params.id, { force: query.force ?? false, volumes: query.volumes ?? false })
  return { id: params.id, removed: true }
})
