import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { filePathParam } from "#lib/stacks/files.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStackFile",
    summary: "One of the stack's files, as {path, content}; 404 when the stack has no file at that path",
    tags: ["stacks"],
  },
  params: v.object({
    name: stackNameSchema,
    path: v.pipe(v.string(), v.description("the file's path relative to the stack's folder, such as conf/site.conf")),
  }),
  response: v.object({ path: v.string(), content: v.string() }),
  handler: async ({ params, ctx }) => {
    const path = filePathParam(params.path)
    const content = await ctx.stacks.file(params.name, path)
    return { path, content }
  },
})
