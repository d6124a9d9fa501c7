import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envVarSchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "exportStackEnv",
  summary: "The environment with secrets in the clear; needs Authorization: Bearer <cluster token>",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.array(envVarSchema)

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ params, ctx }) => (await ctx.stacks.read(params.name)).env)
