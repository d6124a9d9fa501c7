import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envVarSchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "exportStackEnv",
    summary: "The environment with secrets in the clear; needs Authorization: Bearer <cluster token>",
    tags: ["stacks"],
  },
  params: stackParams,
  response: v.array(envVarSchema),
  handler: async ({ params, ctx }) => (await ctx.stacks.read(params.name)).env,
})
