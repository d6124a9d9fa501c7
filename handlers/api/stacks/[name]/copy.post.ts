import * as v from "valibot"
import { copyStack } from "#lib/copy/copy.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { checkCreatesStacks } from "#lib/auth/caller.ts"
import { copyBlockedSchema, copyResultSchema } from "#lib/copy/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

const flag = (description: string) => v.optional(v.pipe(v.boolean(), v.description(description)))

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "copyStack",
    summary:
      "Copy the stack (volume data included by default) to another server or under a new name; returns the plan. Blockers refuse a real copy with 409 and the plan; dry_run changes nothing",
    tags: ["move"],
  },
  params: stackParams,
  body: v.optional(
    v.object({
      from: v.optional(v.pipe(v.string(), v.description("source node name in the registry (default: this server)"))),
      to: v.optional(v.pipe(v.string(), v.description("destination node name (default: this server)"))),
      as: v.optional(
        v.pipe(
          v.string(),
          v.description("the copy's stack name (default: the source's; must differ on the same server)"),
        ),
      ),
      include_volumes: flag("also copy named volume data (default: true)"),
      start: flag("start the copy once written (default: false)"),
      allow_binds: flag("accept that host-path mounts stay behind"),
      allow_anonymous_volumes: flag("accept losing anonymous volumes"),
      allow_port_clash: flag("write the copy even if a port it publishes is already published at the destination"),
      dry_run: flag("only plan, change nothing"),
    }),
    {},
  ),
  response: { 200: copyResultSchema, 201: copyResultSchema, 409: copyBlockedSchema },
  handler: async ({ params, body, request, ctx, set }) => {
    checkCreatesStacks(ctx.auth, request)
    const { plan, copied, started } = await copyStack(ctx, params.name, body)
    if (copied) set.status = 201
    return { ...plan, dry_run: !copied, started }
  },
})
