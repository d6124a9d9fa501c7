import * as v from "valibot"
import { envInput } from "#lib/stacks/env.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envEntrySchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "setStackEnv",
    summary:
      "Replace the environment without deploying: a null value keeps the stored one, an omitted secret flag keeps the stored flag; answers env_pending",
    tags: ["stacks"],
  },
  params: stackParams,
  body: envInput,
  response: v.object({ env_pending: v.boolean(), env: v.array(envEntrySchema) }),
  handler: async ({ params, body, ctx }) => ctx.verbs.setEnv(params.name, body),
})
