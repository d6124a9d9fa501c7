import { envInput, publicEnv, type EnvInput } from "#lib/stacks/env.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const body = envInput
export const detail = {
  summary: "Replace the environment without deploying: a null value keeps the stored one, an omitted secret flag keeps the stored flag; answers env_pending",
  tags: ["stacks"],
}

export default defineHandler<EnvInput>(async ({ params, body, ctx }) => {
  const stack = await ctx.stacks.setEnv(stackName(params.name), body)
  return { env_pending: stack.state.env_pending, env: publicEnv(stack.env) }
})
