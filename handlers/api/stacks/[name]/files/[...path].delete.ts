import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { filePathParam } from "#lib/stacks/files.ts"

import { filesStateSchema } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "deleteStackFile",
  summary:
    "Remove one of the stack's files without deploying (compose checks the stack without it first); answers files_pending, cleared by apply",
  tags: ["stacks"],
}

export const params = v.object({
  name: stackNameSchema,
  path: v.pipe(v.string(), v.description("the file's path relative to the stack's folder, such as conf/site.conf")),
})
export const response = filesStateSchema

export const role = "operator"

export default defineHandler(async ({ params, request, ctx }) =>
  ctx.verbs.deleteFile(params.name, filePathParam(params.path), ctx.auth.who(request)?.user),
)
