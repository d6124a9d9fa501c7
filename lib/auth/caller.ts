// The identity a route that acts for its caller needs (tokens are theirs): 404 while sign-in is off.
import { HttpError } from "../http/http-error.ts"
import type { Auth } from "./auth.ts"
import type { Identity } from "./identity.ts"

export function caller(auth: Pick<Auth, "enabled" | "who">, request: Request): Identity {
  if (!auth.enabled) throw new HttpError(404, "auth_off", "sign-in is off (SVC_AUTH): there are no users and no tokens")
  const identity = auth.who(request)
  if (!identity) throw new HttpError(401, "unauthorized", "sign in, or send Authorization: Bearer <API token>")
  return identity
}
