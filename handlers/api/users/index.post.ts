import { defineHandler } from "#lib/service/handler.ts"
import { userSchema } from "#lib/auth/schemas.ts"
import { newUser } from "#lib/auth/user-input.ts"
import { checkName, checkPassword, view } from "#lib/auth/users.ts"

export const detail = {
  operationId: "createUser",
  summary: "Add a local user with a password and a role; 409 when the name is taken",
  tags: ["auth"],
}

export const body = newUser
export const response = { 201: userSchema }

export const role = "admin"

export default defineHandler(async ({ body, ctx, set }) => {
  checkName(body.name)
  checkPassword(body.password)
  const user = {
    role: body.role,
    ...(body.stacks?.length && { stacks: body.stacks }),
    hash: await ctx.auth.passwords.hash(body.password),
    created: new Date(ctx.now()).toISOString(),
  }
  ctx.auth.users.add(body.name, user)
  set.status = 201
  return view(body.name, user)
})
