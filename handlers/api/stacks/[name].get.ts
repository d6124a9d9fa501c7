import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"
import { stackUpdateCheckSchema } from "#lib/images/schemas.ts"

export const detail = {
  operationId: "getStack",
  summary: "One stack: state, services and their containers, current_version, env_pending, its last update check",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.object({ ...stackSchema.entries, updates: v.nullable(stackUpdateCheckSchema) })

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => {
  const { name } = params
  const [view, updates] = await Promise.all([stackView(ctx.stacks, ctx.engine, name), ctx.imageUpdates.records()])
  return { ...view, updates: updates.stacks[name] ?? null }
})
