import { publicEnv } from "#lib/stacks/env.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "The stack's environment [{key, value, secret}]; secret values are null", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => publicEnv((await ctx.stacks.read(stackName(params.name))).env))
