import * as v from "valibot"
import { copyStack } from "#lib/copy/copy.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { errorBody } from "#lib/http/http-error.ts"
import { copyBlockedSchema, copyResultSchema } from "#lib/copy/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

export const detail = {
  operationId: "copyStack",
  summary: "Copy the stack (volume data included by default) to another server or under a new name; returns the plan. Blockers refuse a real copy with 409 and the plan; dry_run changes nothing",
  tags: ["move"],
}
const flag = v.optional(v.boolean())
export const body = v.optional(v.object({
  from: v.optional(v.string()),
  to: v.optional(v.string()),
  as: v.optional(v.string()),
  include_volumes: flag,
  start: flag,
  allow_binds: flag,
  allow_anonymous_volumes: flag,
  allow_port_clash: flag,
  dry_run: flag,
}), {})

export const params = stackParams
export const response = { 200: copyResultSchema, 201: copyResultSchema, 409: copyBlockedSchema }

export default defineHandler<v.InferOutput<typeof body>>(async ({ params, body, ctx, set }) => {
  const { plan, copied, started } = await copyStack(ctx, params.name, body)
  if (plan.blockers.length && !body.dry_run) {
    const message = `the copy is blocked: ${plan.blockers.map((b) => b.message).join("; ")}`
    return Response.json({ ...errorBody("copy_blocked", message), plan }, { status: 409 })
  }
  if (copied) set.status = 201
  return { ...plan, dry_run: !copied, started }
})
