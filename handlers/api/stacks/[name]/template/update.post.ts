import * as v from "valibot"
import { updateResult } from "#lib/catalog/schemas.ts"
import { isAdmin } from "#lib/auth/caller.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "updateStackTemplate",
    summary:
      "Apply the template's newer version to the stack through the guarded update: a deploy of its compose file watched for `watch` seconds (SVC_UPDATE_WATCH unless given), rolled back to what ran before when it fails (`stack.update.verdict`); new variables take `values`, their defaults or generated secrets (shown once). 409 no_update when the stack runs the current version",
    tags: ["catalog", "stacks"],
  },
  params: stackParams,
  body: v.optional(
    v.object({
      values: v.optional(v.record(v.pipe(v.string(), v.maxLength(128)), v.pipe(v.string(), v.maxLength(4096)))),
      watch: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3600))),
    }),
    {},
  ),
  response: updateResult,
  handler: async ({ params, body, ctx, request }) =>
    ctx.catalog.update(params.name, body, {
      admin: isAdmin(ctx.auth, request),
      by: ctx.auth.who(request)?.user,
      signal: request.signal,
    }),
})
