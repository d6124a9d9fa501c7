import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { updateOutcomeSchema } from "#lib/updates/schemas.ts"

export const detail = {
  operationId: "listStackUpdates",
  summary: "The stack's guarded updates, newest first (the last 50): verdict, reason, fix, images from and to, timings",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.object({ stack: v.string(), history: v.array(updateOutcomeSchema) })

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => {
  const { name } = params
  await ctx.stacks.read(name)
  return { stack: name, history: await ctx.updateRecords.history(name) }
})
