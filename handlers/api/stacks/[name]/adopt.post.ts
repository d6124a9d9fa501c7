import * as v from "valibot"
import { adoptProject } from "#lib/stacks/adopt.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { errorBody } from "#lib/http/http-error.ts"

export const detail = {
  summary:
    "Adopt a compose project made elsewhere (no files here) as a stack: its files from its labels (read under SVC_BIND_ROOTS, else sent as content/env/files), version 1 \"adopt\", containers kept where compose's config hash matches. Returns the plan; 409 with the plan when it is blocked (files needed, a bind refused, services that would be recreated without recreate: true); dry_run changes nothing",
  tags: ["stacks"],
}
const flag = v.optional(v.boolean())
export const body = v.optional(
  v.object({
    content: v.optional(v.string()),
    env: v.optional(v.array(v.object({ key: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment key is letters, digits and _, not starting with a digit")), value: v.string(), secret: flag }))),
    files: v.optional(v.record(v.string(), v.string())),
    recreate: flag,
    dry_run: flag,
  }),
  {},
)

export default defineHandler<v.InferOutput<typeof body>>(async ({ params, body, ctx, set }) => {
  const { plan, stack } = await adoptProject(ctx, params.name!, body)
  if (plan.blockers.length && !body.dry_run) return Response.json({ ...errorBody("adopt_blocked", `adopting ${plan.name} is blocked: ${plan.blockers.join("; ")}`), plan }, { status: 409 })
  if (stack) set.status = 201
  return { ...plan, dry_run: !stack, stack: stack ?? null }
})
