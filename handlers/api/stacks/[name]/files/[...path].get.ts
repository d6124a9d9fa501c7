import { defineHandler } from "#lib/http/handler.ts"
import { filePathParam } from "#lib/stacks/files.ts"
import { stackName } from "#lib/stacks/name.ts"

export const detail = { summary: "One of the stack's files, as {path, content}; 404 when the stack has no file at that path", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => {
  const path = filePathParam(params.path)
  const content = await ctx.stacks.file(stackName(params.name), path)
  return { path, content }
})
