import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "removeStack",
    summary: "Remove a stack: its containers, networks and files; named volumes stay unless volumes=true",
    tags: ["stacks"],
  },
  params: stackParams,
  query: v.object({
    volumes: v.optional(flagFor("also remove the stack's named volumes and their data (default: they stay)")),
  }),
  response: v.object({ removed: v.string(), volumes_removed: v.boolean() }),
  handler: async ({ params, query, request, ctx }) => {
    const { name } = params
    const volumes = query.volumes ?? false
    await ctx.verbs.remove(name, { volumes, signal: request.signal })
    return { removed: name, volumes_removed: volumes }
  },
})
