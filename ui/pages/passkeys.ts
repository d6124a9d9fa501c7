// Passkeys in the UI, through the browser's WebAuthn (@simplewebauthn/browser turns the service's JSON
// options into navigator.credentials calls and their answers back into JSON): signing in with one
// (after the password, or instead of it), adding one under a name, the list with each one's removal,
// and the proof a removal asks for (the password or a current code of the app).
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser"
import type * as v from "valibot"
import type { passkeySchema } from "#lib/auth/schemas.ts"
import { call, post } from "../api.ts"
import { action, errorBox, h, modal, render, when } from "../dom.ts"

type Passkey = v.InferOutput<typeof passkeySchema>
const local = { local: true }

export const passkeysSupported = () => browserSupportsWebAuthn()

/** Signs in with a passkey: the second step of the sign-in waiting, or (none waiting) instead of the password. */
export async function signInWithPasskey(): Promise<void> {
  const optionsJSON = await post("/auth/login/passkey/options", undefined, local)
  const credential = await startAuthentication({ optionsJSON })
  await post("/auth/login/passkey", { credential }, local)
  location.reload()
}

/** A button that signs in with a passkey, its failure told in `problems`. */
export function passkeySignInButton(label: string, problems: HTMLElement): HTMLElement | false {
  if (!passkeysSupported()) return false
  const button = h("button", { type: "button" }, label)
  button.addEventListener("click", async () => {
    render(problems)
    button.disabled = true
    try {
      await signInWithPasskey()
    } catch (err) {
      render(problems, errorBox(err))
      button.disabled = false
    }
  })
  return button
}

/** A name and "Add a passkey": registers one through the browser; `done` gets the recovery codes of a first factor. */
export function passkeyAdd(done: (codes: string[] | undefined) => void): HTMLElement | false {
  if (!passkeysSupported()) return false
  const name = h("input", { id: "passkey-name", required: true, maxLength: 64, placeholder: "laptop" })
  const said = h("div", { "aria-live": "polite" })
  const form = h(
    "form",
    { class: "passkey-add" },
    h("div", { class: "field" }, h("label", { for: "passkey-name" }, "Passkey name"), name),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Add a passkey")),
    said,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(said)
    try {
      const optionsJSON = await post("/auth/factors/passkeys/options", undefined, local)
      const credential = await startRegistration({ optionsJSON })
      const { recovery_codes } = await post<{ recovery_codes?: string[] }>(
        "/auth/factors/passkeys",
        { name: name.value, credential },
        local,
      )
      done(recovery_codes)
    } catch (err) {
      render(said, errorBox(err))
    }
  })
  return form
}

/** Asks for the password or a current code of the app before a factor is removed; undefined when cancelled. */
export async function askProof(title: string): Promise<{ password: string } | { code: string } | undefined> {
  const field = h("input", { id: "proof", type: "password", autocomplete: "current-password", required: true })
  const answer = await modal(
    title,
    [
      h(
        "p",
        null,
        "Give your password, or a code your authenticator app shows now. Your other sessions are signed out.",
      ),
      h("div", { class: "field" }, h("label", { for: "proof" }, "Password or code"), field),
    ],
    (close) => [
      h("button", { type: "button", onclick: () => close("no") }, "Cancel"),
      h("button", { type: "button", class: "danger", onclick: () => close("yes") }, "Remove"),
    ],
  )
  if (answer !== "yes" || !field.value) return undefined
  return /^\d{6}$/.test(field.value) ? { code: field.value } : { password: field.value }
}

/** Removes a factor at `path` once the proof is given; false when cancelled. */
export async function removeFactor(path: string, title: string): Promise<boolean> {
  const proof = await askProof(title)
  if (!proof) return false
  await call("DELETE", path, proof, local)
  return true
}

/** The user's passkeys, each with its removal. */
export function passkeyList(keys: Passkey[], removed: () => void): HTMLElement | false {
  if (!keys.length) return false
  return h(
    "ul",
    { class: "passkeys", "aria-label": "Passkeys" },
    keys.map((k) =>
      h(
        "li",
        null,
        h("strong", null, k.name),
        ` added ${when(k.created)}, last used ${when(k.last_used)} `,
        action(
          "Remove",
          async () =>
            (await removeFactor(`/auth/factors/passkeys/${encodeURIComponent(k.id)}`, `Remove ${k.name}`)) && removed(),
          { class: "small danger", needs: null, label: `Remove the passkey ${k.name}` },
        ),
      ),
    ),
  )
}
