import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { stackView } from "#lib/stacks/state.ts"

export const detail = { summary: "One stack: state, services and their containers, current_version, env_pending, its last update check", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const name = stackName(params.name)
  const [view, updates] = await Promise.all([stackView(ctx.stacks, ctx.engine, name), ctx.updates.records()])
  return { ...view, updates: updates.stacks[name] ?? null }
})
