import { publicEnv } from "../../../../lib/env.ts"
import { defineHandler } from "../../../../lib/handler.ts"
import { stackName } from "../../../../lib/stack-name.ts"

export const detail = { summary: "The stack's environment [{key, value, secret}]; secret values are null", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => publicEnv((await ctx.stacks.read(stackName(params.name))).env))
