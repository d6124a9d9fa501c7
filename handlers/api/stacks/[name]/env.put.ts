import * as v from "valibot"
import { envInput, type EnvInput } from "#lib/stacks/env.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envEntrySchema } from "#lib/stacks/schemas.ts"

export const body = envInput
export const detail = {
  operationId: "setStackEnv",
  summary:
    "Replace the environment without deploying: a null value keeps the stored one, an omitted secret flag keeps the stored flag; answers env_pending",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.object({ env_pending: v.boolean(), env: v.array(envEntrySchema) })

export const role = "operator"

export default defineHandler<EnvInput>(async ({ params, body, ctx }) => ctx.verbs.setEnv(params.name, body))
