// The current identity as GET /api/auth/me and a sign-in answer it.
import type { Identity } from "./identity.ts"
import type { AuthMode } from "./config.ts"

export const me = (identity: Identity, modes: ReadonlySet<AuthMode>) => ({
  user: identity.user,
  role: identity.role,
  source: identity.source,
  ...(identity.stacks && { stacks: identity.stacks }),
  ...(identity.token && { token: identity.token }),
  modes: [...modes],
})
