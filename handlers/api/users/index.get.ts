import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { userSchema } from "#lib/auth/schemas.ts"

export const detail = {
  operationId: "listUsers",
  summary: "The local users: name, role, stacks, created (never a password hash)",
  tags: ["auth"],
}

export const response = v.array(userSchema)

export const role = "admin"

export default defineHandler(({ ctx }) => ctx.auth.users.list())
