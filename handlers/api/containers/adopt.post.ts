import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { checkCreatesStacks } from "#lib/auth/caller.ts"
import { envEntrySchema, stackSchema } from "#lib/stacks/schemas.ts"

const plan = {
  name: v.string(),
  compose: v.string(),
  env: v.array(envEntrySchema),
  services: v.array(v.object({ service: v.string(), container: v.string() })),
  unexpressed: v.array(v.object({ service: v.string(), option: v.string(), detail: v.string() })),
}

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "adoptContainers",
    summary:
      "Adopt containers started with `docker run` into a new stack: answers the compose file generated from their inspect data (checked with compose), the stack's environment (secret-looking keys flagged secret, values hidden) and what the file could not express. Without dry_run, writes the stack, stops the containers, brings the stack up and, once its containers run, removes the old ones (their named volumes and binds keep their data); if the stack does not come up, it is removed and the old containers start again. 409 for a stack name taken or a container of a compose project",
    tags: ["containers", "stacks"],
  },
  body: v.pipe(
    v.object({
      containers: v.pipe(
        v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
        v.minLength(1, "name at least one container"),
        v.maxLength(100),
        v.description(
          "ids or names of the containers to adopt, none of a compose project; each becomes a service named after it",
        ),
      ),
      stack: v.pipe(v.string(), v.description("the new stack's name (its compose project name), not taken")),
      dry_run: v.pipe(
        v.optional(v.boolean()),
        v.description("answer the generated file and what it cannot express, change nothing"),
      ),
    }),
    v.examples([{ containers: ["web", "db"], stack: "shop", dry_run: true }]),
  ),
  response: {
    200: v.object({ ...plan, dry_run: v.literal(true) }),
    201: v.object({ ...plan, dry_run: v.literal(false), stack: stackSchema }),
  },
  handler: async ({ body, request, ctx, set }) => {
    checkCreatesStacks(ctx.auth, request)
    const adopted = await ctx.verbs.adoptContainers(body.stack, body.containers, body.dry_run ?? false)
    if (!adopted.dry_run) set.status = 201
    return adopted
  },
})
