import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { checkCreatesStacks } from "#lib/auth/caller.ts"
import { errorSchema } from "#lib/http/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"
import { adoptBlockedSchema, adoptResultSchema, filesInput } from "#lib/stacks/schemas.ts"

const flag = (description: string) => v.optional(v.pipe(v.boolean(), v.description(description)))

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "adoptStack",
    summary:
      'Adopt a compose project made elsewhere (no files here) as a stack: its files from its labels (read under SVC_BIND_ROOTS, else sent as content/env/files), version 1 "adopt", containers kept where compose\'s config hash matches. Returns the plan; 409 with the plan when it is blocked (files needed, a bind refused, services that would be recreated without recreate: true); dry_run changes nothing',
    tags: ["stacks"],
  },
  params: stackParams,
  body: v.optional(
    v.object({
      content: v.optional(
        v.pipe(
          v.string(),
          v.description(
            "the compose file, when the plan lists it as needed (outside SVC_BIND_ROOTS, or several files with compose v1)",
          ),
        ),
      ),
      env: v.optional(
        v.pipe(
          v.array(
            v.object({
              key: v.pipe(
                v.string(),
                v.regex(
                  /^[A-Za-z_][A-Za-z0-9_]*$/,
                  "an environment key is letters, digits and _, not starting with a digit",
                ),
              ),
              value: v.string(),
              secret: v.optional(v.boolean()),
            }),
          ),
          v.description(
            "the environment, when the plan lists the env file as needed; secret omitted: by SVC_SECRET_KEYS",
          ),
        ),
      ),
      files: v.optional(
        v.pipe(filesInput, v.description("files of the project's folder the compose file reads, relative path → text")),
      ),
      recreate: flag("go ahead although services would be recreated (their file differs from what runs)"),
      dry_run: flag("only plan; nothing changes"),
    }),
    {},
  ),
  response: {
    200: adoptResultSchema,
    201: adoptResultSchema,
    409: v.union([adoptBlockedSchema, errorSchema]),
  },
  handler: async ({ params, body, request, ctx, set }) => {
    checkCreatesStacks(ctx.auth, request)
    const adopted = await ctx.verbs.adopt(params.name, body)
    if (!adopted.dry_run) set.status = 201
    return adopted
  },
})
