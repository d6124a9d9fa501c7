import { defineRoute } from "#lib/service/handler.ts"
import { notFound, unauthenticated } from "#lib/errors/errors.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "getMe",
    summary:
      "Who is signed in: user, role, source, stacks and the sign-in modes on; 401 (with `modes`) when nobody is; 404 while sign-in is off",
    tags: ["auth"],
  },
  response: meSchema,
  handler: async ({ request, ctx }) => {
    const modes = [...ctx.auth.config.modes]
    if (!ctx.auth.enabled) throw notFound("sign-in is off (SVC_AUTH)", "auth_off")
    const identity = ctx.auth.who(request)
    if (!identity) throw unauthenticated("nobody is signed in", "unauthorized", { fields: { modes } })
    return me(identity, ctx.auth.config.modes)
  },
})
