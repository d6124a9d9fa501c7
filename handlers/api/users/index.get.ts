import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { userSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "listUsers",
    summary: "The local users: name, role, stacks, created (never a password hash)",
    tags: ["auth"],
  },
  response: v.array(userSchema),
  handler: ({ ctx }) => ctx.auth.users.list(),
})
