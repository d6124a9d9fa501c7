import * as v from "valibot"
import { envInput } from "#lib/stacks/env.ts"
import { stackFiles } from "#lib/copy/export.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { ORCHESTRATORS } from "#lib/stacks/orchestrator.ts"
import { watchSeconds } from "#lib/updates/watch-body.ts"
import { stackUpdatedSchema } from "#lib/updates/schemas.ts"

export const body = v.pipe(
  v.object({
    name: v.pipe(v.string(), v.description("stack name (its compose project name)")),
    content: v.pipe(v.string(), v.description("the compose file (YAML)")),
    env: v.optional(envInput),
    files: v.optional(v.pipe(stackFiles, v.description("the stack's other files, relative path → text; replaces them all; omitted keeps them"))),
    watch: watchSeconds,
    orchestrator: v.optional(v.pipe(v.picklist(ORCHESTRATORS), v.description('what runs a new stack: "compose" (the default) on this engine, or "swarm": `docker stack deploy` on the swarm this engine manages; an existing stack keeps its own (naming the other is 409 orchestrator_mismatch)'))),
  }),
  v.examples([
    {
      name: "shop",
      content: 'services:\n  web:\n    image: nginx:1.25\n    ports: ["8081:80"]\n    environment:\n      DB_PASSWORD: ${DB_PASSWORD}\n',
      env: [
        { key: "DB_PASSWORD", value: "s3cret", secret: true },
        { key: "MODE", value: "prod", secret: false },
      ],
    },
  ]),
)
export const detail = {
  operationId: "deployStack",
  summary:
    "Deploy a stack: checks the compose file with compose, writes it, brings it up and adds a version; env (if given) replaces the environment, a null value keeping the stored one; files (if given: relative path → text) replace the stack's other files, checked with it. With `watch` (seconds) the stack's health is watched afterwards, a failed watch going back to what ran before; the answer then carries `update` with the verdict",
  tags: ["stacks"],
}

export const response = { 200: stackUpdatedSchema, 201: stackUpdatedSchema }

export const role = "operator"

export default defineHandler<v.InferOutput<typeof body>>(async ({ body, request, ctx, set }) => {
  const { stack, created } = await ctx.verbs.deploy(stackName(body.name), body.content, { ...body, by: ctx.auth.who(request)?.user, signal: request.signal })
  set.status = created ? 201 : 200
  return stack
})
