import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { filePathParam } from "#lib/stacks/files.ts"

import { filesStateSchema } from "#lib/stacks/schemas.ts"

const written = v.object({ ...filesStateSchema.entries, created: v.boolean() })

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "putStackFile",
    summary:
      "Write one of the stack's files without deploying (201 when new): the path stays in the stack's folder, compose.yaml, .env, env.json, state.json and versions/ are not writable here, compose checks the stack with it first; answers files_pending, cleared by apply",
    tags: ["stacks"],
  },
  params: v.object({
    name: stackNameSchema,
    path: v.pipe(v.string(), v.description("the file's path relative to the stack's folder, such as conf/site.conf")),
  }),
  body: v.object({
    content: v.pipe(v.string(), v.description("the file's whole new text (at most 1 MiB)")),
  }),
  response: { 200: written, 201: written },
  handler: async ({ params, body, request, ctx, set }) => {
    const file = await ctx.verbs.writeFile(
      params.name,
      filePathParam(params.path),
      body.content,
      ctx.auth.who(request)?.user,
    )
    set.status = file.created ? 201 : 200
    return file
  },
})
