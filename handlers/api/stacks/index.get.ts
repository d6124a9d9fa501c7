import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { visibleTo } from "#lib/auth/identity.ts"
import { stackViews } from "#lib/stacks/state.ts"
import { stackListEntrySchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "listStacks",
  summary:
    "Every stack with its state, services and containers, and its git source's marker; compose projects made elsewhere are listed with managed: false",
  tags: ["stacks"],
}

export const response = v.array(stackListEntrySchema)

export const role = "viewer"

export default defineHandler(async ({ ctx, request }) => {
  const stacks = visibleTo(
    ctx.auth.who(request),
    await stackViews(ctx.stacks, await ctx.engine.listContainers({ all: true }), ctx.engine),
    (s) => s.name,
  )
  return Promise.all(stacks.map(async (s) => ({ ...s, git: await ctx.git.marker(s.name) })))
})
