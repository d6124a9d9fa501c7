import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { userName } from "#lib/auth/schemas.ts"

export const detail = {
  operationId: "deleteUser",
  summary: "Remove a local user: their sessions and API tokens end; not the last admin (409 last_admin)",
  tags: ["auth"],
}

export const params = v.object({ name: userName })
export const response = v.object({ removed: v.string() })

export const role = "admin"

export default defineHandler(({ params, ctx }) => {
  ctx.auth.users.remove(params.name)
  ctx.auth.forget(params.name)
  return { removed: params.name }
})
