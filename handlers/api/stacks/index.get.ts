import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { visibleTo } from "#lib/auth/identity.ts"
import { stackViews } from "#lib/stacks/state.ts"
import { stackListEntrySchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listStacks",
    summary:
      "Every stack with its state, services and containers, and its git source's marker; compose projects made elsewhere are listed with managed: false",
    tags: ["stacks"],
  },
  response: v.array(stackListEntrySchema),
  handler: async ({ ctx, request }) => {
    const stacks = visibleTo(
      ctx.auth.who(request),
      await stackViews(ctx.stacks, await ctx.engine.listContainers({ all: true })),
      (s) => s.name,
    )
    return Promise.all(stacks.map(async (s) => ({ ...s, git: await ctx.git.marker(s.name) })))
  },
})
