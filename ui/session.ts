// Who is signed in (GET /api/auth/me), when sign-in is on: the body's data-role hides what that role
// may not do (style.css), the header shows the user with sign-out. With sign-in off (404) the UI is
// as it is without it.
import type * as v from "valibot"
import type { meSchema } from "#lib/auth/schemas.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { get, post } from "./api.ts"
import { h, render } from "./dom.ts"

export type Me = v.InferOutput<typeof meSchema>
type Mode = Me["modes"][number]

/** A sign-in waiting for its second step, or for a factor to be set up (SVC_AUTH_MFA). */
export type Pending = "second_factor" | "enrol"

/** Sign-in off, nobody signed in (with the modes to offer, and a sign-in half done), or the signed-in user. */
export type Session =
  | { state: "off" }
  | { state: "signed-out"; modes: Mode[]; pending?: Pending }
  | { state: "signed-in"; me: Me }

let signedIn: Me | undefined

/** The signed-in user, once the header shows them. */
export const currentUser = () => signedIn

export async function whoAmI(): Promise<Session> {
  try {
    return { state: "signed-in", me: await get<Me>("/auth/me", { local: true }) }
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return { state: "off" }
    if (err instanceof HttpError && err.status === 401) {
      const body = await fetch("/api/auth/me")
        .then((r) => r.json())
        .catch(() => ({}))
      const modes = Array.isArray(body?.modes) ? body.modes : []
      const pending = body?.pending === "second_factor" || body?.pending === "enrol" ? body.pending : undefined
      return { state: "signed-out", modes, ...(pending && { pending }) }
    }
    throw err
  }
}

/** Ends the session; a single sign-on also ends at the identity provider when it offers that. */
async function signOut(me: Me): Promise<void> {
  if (me.source === "oidc") {
    const { redirect } = await post<{ redirect: string | null }>("/auth/oidc/logout", undefined, { local: true })
    if (redirect) return void location.assign(redirect)
  } else await post("/auth/logout", undefined, { local: true })
  location.assign("/")
}

/** The header's user, role and sign-out button; sets the body's role. */
export function showUser(slot: HTMLElement, me: Me): void {
  signedIn = me
  document.body.dataset.role = me.role
  const button = h(
    "button",
    { type: "button", class: "small", onclick: () => void signOut(me).catch(() => location.assign("/")) },
    "Sign out",
  )
  render(
    slot,
    h(
      "span",
      { class: "who" },
      h("strong", { class: "user" }, me.user),
      " ",
      h("span", { class: "badge role" }, me.role),
    ),
    button,
  )
  slot.hidden = false
}
