import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"

export const detail = {
  operationId: "removeImage",
  summary: "Delete an image, forcefully (its tags too, even when a stopped container uses it)",
  tags: ["images"],
}

export const params = v.object({ id: engineRef })
export const response = v.object({ id: v.string(), untagged: v.array(v.string()), deleted: v.array(v.string()) })

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => {
  const result = await ctx.engine.removeImage(params.id, { force: true })
  return {
    id: params.id,
    untagged: result.flatMap((r) => r.Untagged ?? []),
    deleted: result.flatMap((r) => r.Deleted ?? []),
  }
})
