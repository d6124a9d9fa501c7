import { defineHandler } from "#lib/http/handler.ts"
import { filePathParam } from "#lib/stacks/files.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = {
  summary: "Remove one of the stack's files without deploying (compose checks the stack without it first); answers files_pending, cleared by apply",
  tags: ["stacks"],
}

export default defineHandler(async ({ params, ctx }) => {
  const path = filePathParam(params.path)
  const stack = await ctx.stacks.deleteFile(stackName(params.name), path)
  return { path, files_pending: stack.state.files_pending, files: stack.state.files }
})
