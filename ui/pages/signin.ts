// The sign-in page, shown instead of every other page while nobody is signed in: a local user's form
// and, when single sign-on is on, the way to the identity provider.
import { post } from "../api.ts"
import { errorBox, h, render } from "../dom.ts"
import type { Session } from "../session.ts"
import { passkeySignInButton } from "./passkeys.ts"

export function signInPage(main: HTMLElement, modes: Extract<Session, { state: "signed-out" }>["modes"]): void {
  const problems = h("div")
  const user = h("input", { id: "signin-user", name: "username", autocomplete: "username", required: true })
  const password = h("input", {
    id: "signin-password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
  })
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in")
  const form = h(
    "form",
    { class: "card signin", "aria-labelledby": "signin-h" },
    h("div", { class: "field" }, h("label", { for: "signin-user" }, "User"), user),
    h("div", { class: "field" }, h("label", { for: "signin-password" }, "Password"), password),
    problems,
    h("div", { class: "actions" }, submit, passkeySignInButton("Use a passkey", problems)),
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(problems)
    submit.disabled = true
    try {
      await post("/auth/login", { user: user.value, password: password.value }, { local: true })
      location.reload()
    } catch (err) {
      render(problems, errorBox(err))
      submit.disabled = false
    }
  })
  render(
    main,
    h("h1", { id: "signin-h" }, "Sign in"),
    modes.includes("local") && form,
    modes.includes("oidc") &&
      h("p", null, h("a", { class: "button primary", href: "/api/auth/oidc/login" }, "Sign in with SSO")),
    !modes.includes("local") &&
      !modes.includes("oidc") &&
      h("p", null, "Sign in through the proxy in front of this server."),
  )
  user.focus()
}
