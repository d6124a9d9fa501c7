import * as v from "valibot"
import { publicEnv } from "#lib/stacks/env.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envEntrySchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackEnv",
    summary: "The stack's environment [{key, value, secret}]; secret values are null",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.array(envEntrySchema),
  handler: async ({ params, ctx }) => publicEnv((await ctx.stacks.read(params.name)).env),
})
