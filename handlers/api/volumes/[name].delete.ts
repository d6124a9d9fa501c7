import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { volumeParams } from "#lib/volumes/schemas.ts"

export const detail = {
  operationId: "removeVolume",
  summary: "Delete a volume (409 while a container uses it)",
  tags: ["volumes"],
}

export const params = volumeParams
export const response = v.object({ name: v.string(), removed: v.literal(true) })

export const role = "admin"

export default defineHandler(async ({ params, ctx }) => {
  await ctx.engine.removeVolume(params.name)
  return { name: params.name, removed: true }
})
