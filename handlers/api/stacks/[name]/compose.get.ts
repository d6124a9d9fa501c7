import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export const detail = {
  operationId: "getStackCompose",
  summary: "The stack's compose file, as {name, content}",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.object({ name: v.string(), content: v.string() })

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => {
  const stack = await ctx.stacks.read(params.name)
  return { name: stack.name, content: stack.compose }
})
