import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { userName, userSchema } from "#lib/auth/schemas.ts"
import { userChange } from "#lib/auth/user-input.ts"
import { checkPassword } from "#lib/auth/users.ts"

export const detail = {
  operationId: "changeUser",
  summary:
    "Change a user's password, role or stacks: their sessions and API tokens end; the last admin stays one (409 last_admin)",
  tags: ["auth"],
}

export const params = v.object({ name: userName })
export const body = userChange
export const response = userSchema

export const role = "admin"

export default defineHandler(async ({ params, body, ctx }) => {
  if (body.password !== undefined) checkPassword(body.password)
  const stacks = body.stacks === undefined ? {} : { stacks: body.stacks?.length ? body.stacks : null }
  const hash = body.password === undefined ? {} : { hash: await ctx.auth.passwords.hash(body.password) }
  const change = { ...(body.role && { role: body.role }), ...stacks, ...hash }
  const user = ctx.auth.users.change(params.name, change as never)
  if (Object.keys(change).length) ctx.auth.forget(params.name)
  return user
})
