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
      "Change a user's password, role or stacks: their sessions and API tokens end; the last admin stays one (409 last_admin)",
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
    const user = ctx.auth.users.change(params.name, change as never)
    if (Object.keys(change).length) ctx.auth.forget(params.name)
    return user
  },
})
