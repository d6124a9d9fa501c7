// Adopting what already runs: a compose project made elsewhere (POST /stacks/{name}/adopt) or plain
// containers (POST /containers/adopt) become a stack. Each dialog plans first (dry_run), shows the
// plan and the compose file for review, and adopts only on confirmation.
import { enc, post } from "../api.ts"
import { action, errorBox, h, modal, render, toast } from "../dom.ts"
import type { AdoptPlan, ContainersAdoptPlan } from "../model.ts"

const NAME = /^[a-z0-9][a-z0-9_-]*$/

/** `KEY=value` lines as the API's environment entries (blank lines and # comments skipped). */
function envLines(text: string): { key: string; value: string }[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#") && l.includes("="))
    .map((l) => ({ key: l.slice(0, l.indexOf("=")).trim(), value: l.slice(l.indexOf("=") + 1) }))
}

const section = (title: string, items: Node[]) =>
  items.length
    ? h("section", { class: "plan-part" }, h("h3", null, `${title} (${items.length})`), h("ul", null, items))
    : null
const li = (...text: (string | Node)[]) => h("li", null, ...text)

/** The adoption plan of a compose project: blockers, files needed, services, binds, environment and the file. */
function projectPlan(p: AdoptPlan): HTMLElement {
  const blockers = p.blockers
  return h(
    "div",
    null,
    blockers.length
      ? h("p", { class: "error", role: "alert" }, "Blocked:")
      : h("p", { class: "ok", role: "status" }, "No blockers: the adoption can go ahead."),
    section(
      "Blockers",
      blockers.map((b) => li(b)),
    ),
    section(
      "Files needed",
      p.needed.map((n) => li(`${n.path} → send as ${n.as}`)),
    ),
    section(
      "Services",
      p.services.map((s) => li(`${s.name}: ${s.action === "keep" ? "kept (same containers)" : `would ${s.action}`}`)),
    ),
    section(
      "Binds",
      p.binds.map((b) =>
        li(
          `${b.service}: ${b.source} ${b.action === "rewritten" ? `→ ${b.path}` : `refused (${b.path} is outside SVC_BIND_ROOTS)`}`,
        ),
      ),
    ),
    section(
      "Environment",
      p.env.map((e) =>
        li(`${e.key}${e.secret ? " (secret)" : ""}${e.interpolated ? "" : " (not used by the compose file)"}`),
      ),
    ),
    section(
      "Files",
      p.files.map((f) => li(f)),
    ),
    p.compose
      ? h(
          "section",
          { class: "plan-part" },
          h("h3", null, "Compose file"),
          h("pre", { class: "mono", "aria-label": "Generated compose file" }, p.compose),
        )
      : null,
  )
}

/** Plans, shows and (on confirmation) runs an adoption; `request` is the body without dry_run. */
async function adoptDialog<P extends { name: string; blockers?: string[] }>(
  title: string,
  fields: Node[],
  path: string,
  request: () => Record<string, unknown>,
  view: (p: P) => HTMLElement,
  done: (name: string) => void,
): Promise<void> {
  const plan = h("div", { class: "plan", "aria-live": "polite" })
  let adoptButton!: HTMLButtonElement
  let close = (_: string) => {}
  const review = action(
    "Review",
    async () => {
      render(plan, h("p", { class: "loading" }, "Planning…"))
      try {
        const p = await post<P>(path, { ...request(), dry_run: true })
        render(plan, view(p))
        adoptButton.disabled = (p.blockers ?? []).length > 0
      } catch (err) {
        render(plan, errorBox(err))
      }
    },
    { class: "primary" },
  )
  adoptButton = action("Adopt", async () => {
    render(plan, h("p", { class: "loading" }, "Adopting…"))
    try {
      const p = await post<P>(path, { ...request(), dry_run: false })
      toast(`Adopted ${p.name}`)
      close("adopted")
      done(p.name)
    } catch (err) {
      render(plan, errorBox(err))
    }
    adoptButton.disabled = true
  })
  adoptButton.disabled = true
  for (const f of fields) f.addEventListener("input", () => (adoptButton.disabled = true))
  await modal(
    title,
    h(
      "div",
      { class: "copy-form" },
      fields,
      h("p", { class: "muted" }, "Review first: nothing changes until you adopt."),
      plan,
    ),
    (closeModal) => {
      close = closeModal
      return [review, adoptButton, h("button", { type: "button", onclick: () => closeModal("close") }, "Close")]
    },
  )
}

/** Adopt the compose project `name` (made elsewhere) as a stack. */
export function adoptProjectDialog(name: string, done: () => void): Promise<void> {
  const content = h("textarea", { id: "adopt-content", rows: 6, placeholder: "Empty: read from the project's folder" })
  const env = h("textarea", {
    id: "adopt-env",
    rows: 3,
    placeholder: "KEY=value lines. Empty: read from the project's env file",
  })
  const recreate = h("input", { type: "checkbox", id: "adopt-recreate" })
  const fields = [
    h(
      "div",
      { class: "field" },
      h("label", { for: "adopt-content" }, "Compose file (only if the project's cannot be read here)"),
      content,
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: "adopt-env" }, "Environment (only if the env file cannot be read here)"),
      env,
    ),
    h("label", { class: "check" }, recreate, " Recreate the services whose file differs from what runs"),
  ]
  const request = () => ({
    ...(content.value.trim() ? { content: content.value } : {}),
    ...(env.value.trim() ? { env: envLines(env.value) } : {}),
    recreate: recreate.checked,
  })
  return adoptDialog(`Adopt ${name}`, fields, `/stacks/${enc(name)}/adopt`, request, projectPlan, () => {
    done()
    location.hash = `#/stacks/${enc(name)}`
  })
}

/** The plan of adopting plain containers: the generated file, its services, and what it could not express. */
function containersPlan(p: ContainersAdoptPlan): HTMLElement {
  return h(
    "div",
    null,
    section(
      "Services",
      p.services.map((s) => li(`${s.service} ← ${s.container}`)),
    ),
    section(
      "Not expressed",
      p.unexpressed.map((u) => li(`${u.service}: ${u.option} (${u.detail})`)),
    ),
    section(
      "Environment",
      p.env.map((e) => li(`${e.key}${e.secret ? " (secret)" : ""}`)),
    ),
    h(
      "section",
      { class: "plan-part" },
      h("h3", null, "Compose file"),
      h("pre", { class: "mono", "aria-label": "Generated compose file" }, p.compose),
    ),
    h(
      "p",
      { class: "muted" },
      "Adopting replaces the containers with the stack's; named volumes and binds keep their data.",
    ),
  )
}

/** Adopt plain containers (started with docker run) into a new stack. */
export function adoptContainersDialog(ids: string[], label: string): Promise<void> {
  const stack = h("input", { id: "adopt-stack", pattern: NAME.source, autocomplete: "off", placeholder: "my-app" })
  const fields = [h("div", { class: "field" }, h("label", { for: "adopt-stack" }, "Stack name"), stack)]
  return adoptDialog(
    `Adopt ${label}`,
    fields,
    "/containers/adopt",
    () => ({ containers: ids, stack: stack.value }),
    containersPlan,
    (name) => (location.hash = `#/stacks/${enc(name)}`),
  )
}
