import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { engineRef, removed } from "#lib/engine/schemas.ts"

export const detail = {
  operationId: "removeNetwork",
  summary: "Delete a network (409 while containers are attached)",
  tags: ["networks"],
}

export const params = v.object({ id: engineRef })
export const response = removed("id")

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => {
  await ctx.engine.removeNetwork(params.id)
  return { id: params.id, removed: true }
})
