import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"
import { stackSchema } from "#lib/stacks/schemas.ts"
import { stackUpdateCheckSchema } from "#lib/images/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStack",
    summary: "One stack: state, services and their containers, current_version, env_pending, its last update check",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.object({ ...stackSchema.entries, updates: v.nullable(stackUpdateCheckSchema) }),
  handler: async ({ params, ctx }) => {
    const { name } = params
    const [view, updates] = await Promise.all([stackView(ctx.stacks, ctx.engine, name), ctx.imageUpdates.records()])
    return { ...view, updates: updates.stacks[name] ?? null }
  },
})
