// What a request may say about a user: role, stacks, password.
import * as v from "valibot"
import { password, roleSchema } from "./schemas.ts"

export const stacksInput = v.pipe(
  v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  v.maxLength(256),
  v.description("limit the user to these stacks (their routes; other routes read-only); [] or absent: all"),
)

export const newUser = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  password,
  role: roleSchema,
  stacks: v.optional(stacksInput),
})

export const userChange = v.object({
  password: v.optional(password),
  role: v.optional(roleSchema),
  stacks: v.optional(v.nullable(stacksInput)),
})
