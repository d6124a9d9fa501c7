import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { versionParam } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackVersionCompose",
    summary: "The compose file a version of the stack deployed, as {version, content} (to compare it with another)",
    tags: ["stacks"],
  },
  params: v.object({ name: stackNameSchema, version: versionParam }),
  response: v.object({ version: v.number(), content: v.string() }),
  handler: async ({ params, ctx }) => {
    const stored = await ctx.stacks.version(params.name, params.version)
    return { version: stored.version, content: stored.compose }
  },
})
