import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { userName, userSchema } from "#lib/auth/schemas.ts"
import { userChange } from "#lib/auth/user-input.ts"
import { checkPassword } from "#lib/auth/users.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "changeUser",
    summary:
      "Change a user's password, role or stacks: a new password ends their sessions and API tokens; a role or stacks changed, their sessions and tokens follow at once (a token is never more than its owner), and what they hold open that no longer reaches its route ends; the last admin stays one (409 last_admin)",
    tags: ["auth"],
  },
  params: v.object({ name: userName }),
  body: userChange,
  response: userSchema,
  handler: async ({ params, body, ctx }) => {
    if (body.password !== undefined) checkPassword(body.password)
    const stacks = body.stacks === undefined ? {} : { stacks: body.stacks?.length ? body.stacks : null }
    const hash = body.password === undefined ? {} : { hash: await ctx.auth.passwords.hash(body.password) }
    const change = { ...(body.role && { role: body.role }), ...stacks, ...hash }
    const user = ctx.auth.users.change(params.name, change)
    if (body.password !== undefined) ctx.auth.forget(params.name)
    else ctx.auth.changed()
    return user
  },
})
