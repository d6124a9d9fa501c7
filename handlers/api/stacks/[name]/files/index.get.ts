import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = {
  summary: "The stack's files besides its compose file, as [{path, size}] (size in bytes), sorted by path; its data (binds such as ./data) is not among them",
  tags: ["stacks"],
}

export default defineHandler(async ({ params, ctx }) => {
  const stack = await ctx.stacks.read(stackName(params.name))
  return Object.keys(stack.files)
    .sort()
    .map((path) => ({ path, size: Buffer.byteLength(stack.files[path]!) }))
})
