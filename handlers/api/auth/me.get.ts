import { defineRoute } from "#lib/service/handler.ts"
import { notFound, unauthenticated } from "#lib/errors/errors.ts"
import { me } from "#lib/auth/me.ts"
import { meSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "getMe",
    summary:
      "Who is signed in: user, role, source, stacks, the sign-in modes on, and `enrol` when they must set up a second factor first; 401 (with `modes`, and `pending` with `methods` for a sign-in waiting for its second step) when nobody is; 404 while sign-in is off",
    tags: ["auth"],
  },
  response: meSchema,
  handler: async ({ request, ctx }) => {
    const modes = [...ctx.auth.config.modes]
    if (!ctx.auth.enabled) throw notFound("sign-in is off (SVC_AUTH)", "auth_off")
    const identity = ctx.auth.who(request)
    if (identity) return me(identity, ctx.auth)
    const p = ctx.auth.pendingOf(request)
    const pending = p && { pending: p.stage, methods: ctx.auth.factors.methods(p.user), user: p.user }
    throw unauthenticated("nobody is signed in", "unauthorized", { fields: { modes, ...pending } })
  },
})
