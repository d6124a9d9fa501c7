// API tokens: the signed-in user's own (an admin sees everyone's), one created and shown once, revoke.
import type * as v from "valibot"
import type { tokenSchema } from "#lib/auth/schemas.ts"
import { del, enc, get, post } from "../api.ts"
import { action, copyText, errorBox, h, load, render, table, toast, when } from "../dom.ts"
import { currentUser, type Me } from "../session.ts"

type Token = v.InferOutput<typeof tokenSchema>
const ROLES = ["viewer", "operator", "admin"] as const
const local = { local: true }

function createForm(me: Me, created: () => void): HTMLElement {
  const name = h("input", { id: "token-name", required: true, maxLength: 100, placeholder: "ci-deploys" })
  const role = h(
    "select",
    { id: "token-role" },
    ROLES.slice(0, ROLES.indexOf(me.role) + 1).map((r) => h("option", { value: r, selected: r === me.role }, r)),
  )
  const days = h("input", { id: "token-days", type: "number", min: 1, placeholder: "never" })
  const confirm = h("input", { type: "checkbox", checked: true })
  const shown = h("div", { "aria-live": "polite" })
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "token-new-h" },
    h("h2", { id: "token-new-h" }, "New token"),
    h("div", { class: "field" }, h("label", { for: "token-name" }, "What it is for"), name),
    h("div", { class: "field" }, h("label", { for: "token-role" }, "Role"), role),
    h("div", { class: "field" }, h("label", { for: "token-days" }, "Expires after (days)"), days),
    h("label", { class: "check" }, confirm, " MCP tools show their plan and act on a second, confirming call"),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Create")),
    shown,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(shown)
    try {
      const body = {
        name: name.value,
        role: role.value,
        mcp_confirm: confirm.checked,
        ...(days.value && { expires_in: Number(days.value) * 86400 }),
      }
      const t = await post<Token & { token: string }>("/tokens", body, local)
      const field = h("input", {
        class: "mono token-value",
        readOnly: true,
        value: t.token,
        "aria-label": "The new token",
      })
      render(
        shown,
        h("p", null, h("strong", null, "Copy the token now: "), "it is not shown again."),
        h(
          "div",
          { class: "token" },
          field,
          h("button", { type: "button", class: "small", onclick: () => void copyText(t.token, field) }, "Copy"),
        ),
      )
      name.value = ""
      created()
    } catch (err) {
      render(shown, errorBox(err))
    }
  })
  return form
}

export function tokensPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const me = currentUser()!
  const list = h("section", { class: "card", "aria-labelledby": "tokens-h" })
  render(
    main,
    h("h1", null, "API tokens"),
    h(
      "p",
      { class: "muted" },
      "For scripts, CI and agents: send Authorization: Bearer <token>. A token acts with its own role, at most its owner's.",
    ),
    createForm(me, () => void reload()),
    list,
  )
  const reload = load(
    list,
    () => get<Token[]>("/tokens", { ...local, signal }),
    (tokens) => [
      h("h2", { id: "tokens-h" }, me.role === "admin" ? "Everyone's tokens" : "Your tokens"),
      table(
        tokens,
        [
          { title: "Name", cell: (t) => t.name },
          ...(me.role === "admin" ? [{ title: "User", cell: (t: Token) => t.user }] : []),
          { title: "Role", cell: (t) => t.role },
          { title: "Created", cell: (t) => when(t.created) },
          { title: "Expires", cell: (t) => (t.expires ? when(t.expires) : "never") },
          { title: "Last used", cell: (t) => (t.last_used ? when(t.last_used) : "never") },
          {
            title: "Actions",
            cell: (t) =>
              action("Revoke", () => del(`/tokens/${enc(t.id)}`, local), {
                class: "small danger",
                needs: null,
                label: `Revoke ${t.name}`,
                confirm: `Revoke the token ${t.name}? Whatever uses it is refused from now on.`,
                done: () => (toast(`Revoked ${t.name}`), void reload()),
              }),
          },
        ],
        "No tokens yet.",
        "API tokens",
      ),
    ],
  )
}
