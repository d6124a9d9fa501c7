import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { userName } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "deleteUser",
    summary:
      "Remove a local user: their sessions, API tokens and second factors end; not the last admin (409 last_admin)",
    tags: ["auth"],
  },
  params: v.object({ name: userName }),
  response: v.object({ removed: v.string() }),
  handler: ({ params, ctx }) => {
    ctx.auth.users.remove(params.name)
    ctx.auth.forget(params.name)
    ctx.auth.factors.reset(params.name)
    return { removed: params.name }
  },
})
