// The signed-in user's account: a local user's second factor (ui/pages/factors.ts), their sessions (an
// admin's: everyone's), each ended from here, and a local user's own password.
import type * as v from "valibot"
import type { sessionSchema } from "#lib/auth/schemas.ts"
import { del, enc, get, post } from "../api.ts"
import { action, errorBox, h, load, render, table, toast, when } from "../dom.ts"
import { currentUser, type Me } from "../session.ts"
import { factorsSection } from "./factors.ts"

type Session = v.InferOutput<typeof sessionSchema>
const local = { local: true }

function sessionsSection(me: Me, signal: AbortSignal): HTMLElement {
  const section = h("section", { class: "card", "aria-labelledby": "sessions-h" })
  const reload = load(
    section,
    () => get<Session[]>("/sessions", { ...local, signal }),
    (sessions) => [
      h("h2", { id: "sessions-h" }, me.role === "admin" ? "Everyone's sessions" : "Your sessions"),
      table(
        sessions,
        [
          ...(me.role === "admin" ? [{ title: "User", cell: (s: Session) => s.user }] : []),
          { title: "Device", cell: (s) => h("span", { title: s.agent ?? "" }, s.device) },
          { title: "Address", cell: (s) => s.address ?? "—" },
          { title: "Signed in", cell: (s) => when(s.created) },
          { title: "Last used", cell: (s) => when(s.last_used) },
          {
            title: "Actions",
            cell: (s) =>
              s.current
                ? h("span", { class: "badge" }, "this session")
                : action("End", () => del(`/sessions/${enc(s.id)}`, local), {
                    class: "small danger",
                    needs: null,
                    label: `End the session of ${s.user} on ${s.device}`,
                    confirm: `End the session of ${s.user} on ${s.device}? It is signed out at its next request.`,
                    done: () => (toast(`Ended the session on ${s.device}`), void reload()),
                  }),
          },
        ],
        "No sessions.",
        "Sessions",
      ),
    ],
  )
  return section
}

function passwordForm(): HTMLElement {
  const current = h("input", { id: "pw-current", type: "password", autocomplete: "current-password", required: true })
  const next = h("input", {
    id: "pw-new",
    type: "password",
    autocomplete: "new-password",
    required: true,
    minLength: 8,
  })
  const said = h("div", { "aria-live": "polite" })
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "pw-h" },
    h("h2", { id: "pw-h" }, "Password"),
    h("p", { class: "muted" }, "A new password signs out your other sessions and revokes your API tokens."),
    h("div", { class: "field" }, h("label", { for: "pw-current" }, "Current password"), current),
    h("div", { class: "field" }, h("label", { for: "pw-new" }, "New password"), next),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Change password")),
    said,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(said)
    try {
      await post("/auth/password", { current: current.value, password: next.value }, local)
      form.reset()
      toast("Password changed; your other sessions were signed out")
    } catch (err) {
      render(said, errorBox(err))
    }
  })
  return form
}

export function accountPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const me = currentUser()!
  render(
    main,
    h("h1", null, "Account"),
    h("p", { class: "muted" }, `Signed in as ${me.user} (${me.role}, ${me.source}).`),
    me.source === "local" && !me.token && factorsSection(signal),
    sessionsSection(me, signal),
    me.source === "local" && !me.token && passwordForm(),
  )
}
