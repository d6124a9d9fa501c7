// Second factors in the UI: the second step of a sign-in (a code from the authenticator app, a
// recovery code or a passkey), setting up an authenticator app (its QR code, its secret as text, a code
// to confirm, then the recovery codes shown once) or a passkey (passkeys.ts), and the Account page's
// section that shows them, makes new recovery codes and removes the app or a passkey. A user
// SVC_AUTH_MFA sends to enrol sees only the setup.
import type * as v from "valibot"
import type { factorsSchema } from "#lib/auth/schemas.ts"
import { get, post } from "../api.ts"
import { action, errorBox, h, load, render, toast } from "../dom.ts"
import { passkeyAdd, passkeyList, passkeySignInButton, removeFactor } from "./passkeys.ts"

type Factors = v.InferOutput<typeof factorsSchema>
const local = { local: true }

/** The recovery codes, shown once, with what they are for. */
function recoveryCodes(codes: string[]): HTMLElement {
  return h(
    "div",
    { class: "recovery-codes" },
    h(
      "p",
      null,
      h("strong", null, "Save these recovery codes now: "),
      "they are not shown again. Each signs you in once in place of a code from the app.",
    ),
    h(
      "ul",
      { class: "mono", "aria-label": "Recovery codes" },
      codes.map((c) => h("li", null, c)),
    ),
  )
}

/** The authenticator app's setup: secret and QR code, then a code to confirm; `done` gets the recovery codes. */
function totpSetup(done: (codes: string[] | undefined) => void): HTMLElement {
  const box = h("div")
  const start = h("button", { type: "button", class: "primary" }, "Set up an authenticator app")
  start.addEventListener("click", async () => {
    try {
      const { secret, qr } = await post<{ secret: string; qr: string }>("/auth/factors/totp", undefined, local)
      const code = h("input", {
        id: "totp-code",
        inputMode: "numeric",
        autocomplete: "one-time-code",
        pattern: "[0-9]{6}",
        maxLength: 6,
        required: true,
      })
      const said = h("div", { "aria-live": "polite" })
      const form = h(
        "form",
        { class: "totp-setup" },
        h(
          "p",
          null,
          "Scan the QR code with your authenticator app, or type the secret into it, then give the code it shows.",
        ),
        h("img", { src: qr, alt: "QR code of the authenticator app's secret", width: 200, height: 200 }),
        h("p", null, "Secret: ", h("code", { id: "totp-secret", class: "mono" }, secret)),
        h("div", { class: "field" }, h("label", { for: "totp-code" }, "Code from the app"), code),
        h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Turn on")),
        said,
      )
      form.addEventListener("submit", async (e) => {
        e.preventDefault()
        render(said)
        try {
          const { recovery_codes } = await post<{ recovery_codes?: string[] }>(
            "/auth/factors/totp/confirm",
            { code: code.value },
            local,
          )
          done(recovery_codes)
        } catch (err) {
          render(said, errorBox(err))
        }
      })
      render(box, form)
      code.focus()
    } catch (err) {
      render(box, errorBox(err))
    }
  })
  render(box, start)
  return box
}

/** After the password, a code from the app or a recovery code. */
export function secondStepPage(main: HTMLElement): void {
  const code = h("input", { id: "signin-code", autocomplete: "one-time-code", required: true, maxLength: 64 })
  const problems = h("div")
  const form = h(
    "form",
    { class: "card signin", "aria-labelledby": "second-h" },
    h("p", null, "Give the code your authenticator app shows, or one of your recovery codes, or use a passkey."),
    h("div", { class: "field" }, h("label", { for: "signin-code" }, "Code"), code),
    problems,
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "primary" }, "Sign in"),
      passkeySignInButton("Use a passkey", problems),
    ),
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(problems)
    try {
      await post("/auth/login/code", { code: code.value }, local)
      location.reload()
    } catch (err) {
      render(problems, errorBox(err))
    }
  })
  render(main, h("h1", { id: "second-h" }, "Second step"), form)
  code.focus()
}

/** Only enrolment: SVC_AUTH_MFA requires a factor of this user, who has none. */
export function enrolPage(main: HTMLElement): void {
  const card = h("section", { class: "card", "aria-labelledby": "enrol-h" })
  const finished = (codes: string[] | undefined) =>
    render(
      card,
      h("h2", { id: "enrol-h" }, "Second factor on"),
      codes && recoveryCodes(codes),
      h("button", { type: "button", class: "primary", onclick: () => location.assign("/") }, "Continue"),
    )
  render(
    card,
    h("h2", { id: "enrol-h" }, "Set up a second factor"),
    h("p", null, "This server requires a second factor for your account before anything else."),
    totpSetup(finished),
    passkeyAdd(finished),
  )
  render(main, h("h1", null, "Second factor required"), card)
}

/** The Account page's section: what is set up, a new set of recovery codes, the app removed or set up. */
export function factorsSection(signal: AbortSignal): HTMLElement {
  const section = h("section", { class: "card", "aria-labelledby": "factors-h" })
  const shown = h("div", { "aria-live": "polite" })
  const added = (codes: string[] | undefined) => {
    void reload().then(() => codes && render(shown, recoveryCodes(codes)))
  }
  const reload = load(
    section,
    () => get<Factors>("/auth/factors", { ...local, signal }),
    (f) => [
      h("h2", { id: "factors-h" }, "Second factor"),
      h(
        "p",
        null,
        f.totp ? "An authenticator app is on. " : "No authenticator app. ",
        `${f.passkeys.length || "No"} passkey${f.passkeys.length === 1 ? "" : "s"}. `,
        (f.totp || f.passkeys.length > 0) && `${f.recovery_codes} recovery codes left. `,
        f.required && "This server requires a second factor for your account.",
      ),
      (f.totp || f.passkeys.length > 0) &&
        h(
          "div",
          { class: "actions" },
          action(
            "New recovery codes",
            () => post<{ recovery_codes: string[] }>("/auth/factors/recovery-codes", undefined, local),
            {
              needs: null,
              confirm: "Make ten new recovery codes? The ones you have stop working.",
              done: (r) => (render(shown, recoveryCodes(r.recovery_codes)), toast("New recovery codes made")),
            },
          ),
          f.totp &&
            action(
              "Remove the authenticator app",
              () => removeFactor("/auth/factors/totp", "Remove the authenticator app"),
              { class: "small danger", needs: null, done: (removed) => removed && void reload() },
            ),
        ),
      !f.totp && totpSetup(added),
      passkeyList(f.passkeys, () => void reload()),
      passkeyAdd(added),
      shown,
    ],
  )
  return section
}
