import { defineRoute } from "#lib/service/handler.ts"
import { userSchema } from "#lib/auth/schemas.ts"
import { newUser } from "#lib/auth/user-input.ts"
import { checkName, checkPassword, view } from "#lib/auth/users.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "createUser",
    summary: "Add a local user with a password and a role; 409 when the name is taken",
    tags: ["auth"],
  },
  body: newUser,
  response: { 201: userSchema },
  handler: async ({ body, ctx, set }) => {
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
  },
})
