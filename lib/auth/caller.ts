// The identity a route that acts for its caller needs (tokens are theirs), and the one question every
// route that creates a stack asks of its caller.
import { notFound, refused, unauthenticated } from "../errors/errors.ts"
import type { Auth } from "./auth.ts"
import type { Identity } from "./identity.ts"
import { createsStacks } from "./scope.ts"

/** The caller: 404 while sign-in is off, 401 without one. */
export function caller(auth: Pick<Auth, "enabled" | "who">, request: Request): Identity {
  if (!auth.enabled) throw notFound("sign-in is off (SVC_AUTH): there are no users and no tokens", "auth_off")
  const identity = auth.who(request)
  if (!identity) throw unauthenticated("sign in, or send Authorization: Bearer <API token>")
  return identity
}

/**
 * Refuses (403) a caller limited to stacks: no route creates a stack for one (a deploy, a copy, an
 * import, an adoption, a restore, a git deploy), as POST /api/stacks does not. Anyone while sign-in is off.
 */
export function checkCreatesStacks(auth: Pick<Auth, "who">, request: Request): void {
  const identity = auth.who(request)
  if (!createsStacks(identity))
    throw refused(
      `${identity!.user} is limited to the stacks ${identity!.stacks!.join(", ") || "(none)"}: only a caller limited to no stacks creates one`,
    )
}

/** Whether the caller is an admin (anyone while sign-in is off): what is for admins only is shown to them. */
export const isAdmin = (auth: Pick<Auth, "enabled" | "who">, request: Request): boolean =>
  !auth.enabled || auth.who(request)?.role === "admin"
