import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { filePathParam } from "#lib/stacks/files.ts"

import { filesStateSchema } from "#lib/stacks/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "deleteStackFile",
    summary:
      "Remove one of the stack's files without deploying (compose checks the stack without it first); answers files_pending, cleared by apply",
    tags: ["stacks"],
  },
  params: v.object({
    name: stackNameSchema,
    path: v.pipe(v.string(), v.description("the file's path relative to the stack's folder, such as conf/site.conf")),
  }),
  response: filesStateSchema,
  handler: async ({ params, request, ctx }) =>
    ctx.verbs.deleteFile(params.name, filePathParam(params.path), ctx.auth.who(request)?.user),
})
