import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { fileEntrySchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "listStackFiles",
  summary:
    "The stack's files besides its compose file, as [{path, size}] (size in bytes), sorted by path; its data (binds such as ./data) is not among them",
  tags: ["stacks"],
}

export const params = stackParams
export const response = v.array(fileEntrySchema)

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => {
  const stack = await ctx.stacks.read(params.name)
  return Object.keys(stack.files)
    .sort()
    .map((path) => ({ path, size: Buffer.byteLength(stack.files[path]!) }))
})
