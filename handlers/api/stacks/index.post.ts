import * as v from "valibot"
import { envInput } from "#lib/stacks/env.ts"
import { stackFiles } from "#lib/copy/export.ts"
import { attachedSchema } from "#lib/git/schemas.ts"
import { gitInputSchema } from "#lib/git/source.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { checkCreatesStacks } from "#lib/auth/caller.ts"
import { stackName } from "#lib/stacks/name.ts"
import { ORCHESTRATORS } from "#lib/stacks/orchestrator.ts"
import { watchSeconds } from "#lib/updates/watch-body.ts"
import { stackUpdatedSchema } from "#lib/updates/schemas.ts"

const deployed = v.object({ ...stackUpdatedSchema.entries, git: v.optional(attachedSchema) })

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "deployStack",
    summary:
      "Deploy a stack: checks the compose file with compose, writes it, brings it up and adds a version; env (if given) replaces the environment, a null value keeping the stored one; files (if given: relative path → text) replace the stack's other files, checked with it. With `watch` (seconds) the stack's health is watched afterwards, a failed watch going back to what ran before; the answer then carries `update` with the verdict. With `git` instead of `content`, a new stack is deployed from a repository at the ref's head (201, the version recording the commit; `git` in the answer: the source without its secrets and the webhook secret, shown once); a name taken here is 409 stack_exists unless `attach` is true",
    tags: ["stacks"],
  },
  body: v.pipe(
    v.object({
      name: v.pipe(v.string(), v.description("stack name (its compose project name)")),
      content: v.optional(v.pipe(v.string(), v.description("the compose file (YAML); or `git` instead"))),
      git: v.optional(
        v.pipe(
          gitInputSchema,
          v.description(
            "a git source instead of `content`: the stack's compose file and files come from the repository (see PUT /api/stacks/{name}/git); a name taken here is 409 stack_exists unless `attach` is true",
          ),
        ),
      ),
      attach: v.optional(
        v.pipe(
          v.boolean(),
          v.description(
            "with `git`: put the stack of this name that runs here under the repository (its compose file and files become the repository's)",
          ),
        ),
      ),
      env: v.optional(envInput),
      files: v.optional(
        v.pipe(
          stackFiles,
          v.description("the stack's other files, relative path → text; replaces them all; omitted keeps them"),
        ),
      ),
      watch: watchSeconds,
      orchestrator: v.optional(
        v.pipe(
          v.picklist(ORCHESTRATORS),
          v.description(
            'what runs a new stack: "compose" (the default) on this engine, or "swarm": `docker stack deploy` on the swarm this engine manages; an existing stack keeps its own (naming the other is 409 orchestrator_mismatch)',
          ),
        ),
      ),
    }),
    v.examples([
      {
        name: "blog",
        git: {
          url: "https://git.example.com/ops/blog.git",
          ref: "main",
          path: "deploy/compose.yaml",
          token: "…",
          push: false,
          schedule: null,
        },
        env: [{ key: "DB_PASSWORD", value: "s3cret", secret: true }],
      },
      {
        name: "shop",
        content:
          'services:\n  web:\n    image: nginx:1.25\n    ports: ["8081:80"]\n    environment:\n      DB_PASSWORD: ${DB_PASSWORD}\n',
        env: [
          { key: "DB_PASSWORD", value: "s3cret", secret: true },
          { key: "MODE", value: "prod", secret: false },
        ],
      },
    ]),
    v.check(
      (b) => (b.content === undefined) !== (b.git === undefined),
      "give either `content` (a compose file) or `git` (a repository), not both",
    ),
    v.check(
      (b) => !b.git || b.files === undefined,
      "with `git` the stack's files come from the repository: leave `files` out",
    ),
    v.check((b) => !!b.git || !b.attach, "`attach` goes with `git`"),
  ),
  response: { 200: deployed, 201: deployed },
  handler: async ({ body, request, ctx, set }) => {
    checkCreatesStacks(ctx.auth, request)
    const name = stackName(body.name)
    const { stack, created } = body.git
      ? await ctx.git.deploy(name, body.git, {
          watch: body.watch,
          attach: body.attach,
          first: { env: body.env, orchestrator: body.orchestrator },
          signal: request.signal,
        })
      : await ctx.verbs.deploy(name, body.content!, {
          ...body,
          by: ctx.auth.who(request)?.user,
          signal: request.signal,
        })
    set.status = created ? 201 : 200
    return stack
  },
})
