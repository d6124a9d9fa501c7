import * as v from "valibot"
import { publicEnv } from "#lib/stacks/env.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { envEntrySchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "getStackEnv",
  summary: "The stack's environment [{key, value, secret}]; secret values are null",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.array(envEntrySchema)

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => publicEnv((await ctx.stacks.read(params.name)).env))
