// The current identity as GET /api/auth/me and a sign-in answer it.
import type { Auth } from "./auth.ts"
import type { Identity } from "./identity.ts"

export const me = (identity: Identity, auth: Pick<Auth, "config" | "mustEnrol">) => ({
  user: identity.user,
  role: identity.role,
  source: identity.source,
  ...(identity.stacks && { stacks: identity.stacks }),
  ...(identity.token && { token: identity.token }),
  modes: [...auth.config.modes],
  ...(!identity.token && auth.mustEnrol(identity) && { enrol: true }),
})
