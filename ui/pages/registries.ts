// Registries: the private registries this server keeps credentials for (never a password: "kept"
// or "none"), each tested from here with what the registry answered and the pull quota it reported;
// added, edited and removed by an admin (a password typed once, never shown again; a private CA
// pasted as PEM), imported once from the host's docker configuration; an image pulled with its
// registry's credentials, Docker Hub's remaining pulls asked for.
import type * as v from "valibot"
import type {
  hubQuotaSchema,
  importResultSchema,
  pullResultSchema,
  quotaSchema,
  registryView,
  testResultSchema,
} from "#lib/registries/schemas.ts"
import { del, enc, get, post, put } from "../api.ts"
import { action, errorBox, h, load, modal, render, table, toast, when } from "../dom.ts"

type Registry = v.InferOutput<typeof registryView>
type Quota = v.InferOutput<typeof quotaSchema>
type TestResult = v.InferOutput<typeof testResultSchema>

const quotaText = (q: Quota | null) =>
  q
    ? `${q.remaining}${q.limit === null ? "" : ` of ${q.limit}`} pulls left${q.window_seconds ? ` per ${Math.round(q.window_seconds / 3600)} h` : ""} (${when(q.checked_at)})`
    : "—"

const ORIGIN: Record<Registry["origin"], string> = {
  api: "added here",
  docker_config: "imported",
  control_plane: "sent by the control plane",
}

function testCell(r: Registry): HTMLElement {
  const t = r.last_test
  if (!t) return h("span", { class: "muted" }, "not tested")
  return h(
    "span",
    { title: t.message },
    t.ok ? h("span", { class: "ok" }, "ok") : h("span", { class: "error-text" }, "failed"),
    ` ${when(t.time)}: ${t.message}`,
  )
}

/** The fields of a registry's form, filled from `r` when editing. */
function fields(prefix: string, r?: Registry) {
  const input = (name: string, attrs: Record<string, unknown> = {}) =>
    h("input", { id: `${prefix}-${name}`, name, ...attrs })
  const els = {
    name: input("name", { required: true, maxLength: 63, placeholder: "ghcr-mine", pattern: "[a-z0-9][a-z0-9_.\\-]*" }),
    address: input("address", {
      required: true,
      placeholder: "ghcr.io/my-org",
      value: r ? (r.insecure ? `http://${r.address}` : r.address) : "",
    }),
    username: input("username", { autocomplete: "off", value: r?.username ?? "" }),
    password: input("password", {
      type: "password",
      autocomplete: "new-password",
      placeholder: r?.has_password ? "kept: leave empty to keep it" : "",
    }),
    forget: h("input", { id: `${prefix}-forget`, type: "checkbox" }),
    ca: h("textarea", {
      id: `${prefix}-ca`,
      class: "mono",
      rows: 4,
      placeholder: "-----BEGIN CERTIFICATE-----",
      value: r?.ca ?? "",
    }),
    insecure: h("input", { id: `${prefix}-insecure`, type: "checkbox", checked: r?.insecure ?? false }),
  }
  const field = (name: keyof typeof els, label: string, hint?: string) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: `${prefix}-${name}` }, label),
      els[name],
      hint && h("span", { class: "muted" }, hint),
    )
  const view = [
    r ? null : field("name", "Name"),
    field("address", "Address", "The host as image references name it, with an optional path prefix."),
    field("username", "User name"),
    field("password", "Password or access token", "Kept as a secret: never shown again."),
    r?.has_password && h("label", { class: "check" }, els.forget, " Forget the kept password"),
    field("ca", "CA certificate (PEM), for a registry with a private CA"),
    h("label", { class: "check" }, els.insecure, " Insecure: plain http, no TLS"),
  ]
  const body = () => ({
    address: els.address.value.trim(),
    username: els.username.value.trim() || null,
    ...(els.password.value ? { password: els.password.value } : els.forget.checked ? { password: null } : {}),
    ca: els.ca.value.trim() || null,
    ...(els.insecure.checked ? { insecure: true } : {}),
  })
  return { els, view, body }
}

function addForm(added: () => void): HTMLElement {
  const f = fields("registry-new")
  const said = h("div", { "aria-live": "polite" })
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "registry-new-h", "data-needs": "admin" },
    h("h2", { id: "registry-new-h" }, "Add a registry"),
    f.view,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Add")),
    said,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(said)
    try {
      const r = await post<Registry>("/registries", { name: f.els.name.value.trim(), ...f.body() })
      toast(`Registry ${r.name} kept`)
      form.reset()
      added()
    } catch (err) {
      render(said, errorBox(err))
    } finally {
      f.els.password.value = ""
    }
  })
  return form
}

function editDialog(r: Registry, done: () => void): void {
  const f = fields("registry-edit", r)
  const said = h("div", { "aria-live": "polite" })
  void modal(`Edit ${r.name}`, [f.view, said], (close) => [
    h(
      "button",
      {
        type: "button",
        class: "primary",
        onclick: async () => {
          try {
            await put(`/registries/${enc(r.name)}`, f.body())
            toast(`Registry ${r.name} saved`)
            close("saved")
            done()
          } catch (err) {
            render(said, errorBox(err))
          } finally {
            f.els.password.value = ""
          }
        },
      },
      "Save",
    ),
    h("button", { type: "button", onclick: () => close("close") }, "Close"),
  ])
}

function registriesTable(list: Registry[], reload: () => void): HTMLElement {
  return table(
    list,
    [
      { title: "Name", cell: (r) => r.name },
      {
        title: "Address",
        cell: (r) => h("span", { class: "mono" }, r.insecure ? `http://${r.address}` : r.address),
      },
      { title: "User", cell: (r) => r.username ?? h("span", { class: "muted" }, "anonymous") },
      { title: "Password", cell: (r) => (r.has_password ? "kept" : h("span", { class: "muted" }, "none")) },
      { title: "TLS", cell: (r) => (r.insecure ? "none (insecure)" : r.ca ? "private CA" : "system CAs") },
      { title: "From", cell: (r) => ORIGIN[r.origin] },
      { title: "Last test", cell: testCell },
      { title: "Pull quota", cell: (r) => quotaText(r.pull_quota) },
      {
        title: "Actions",
        cell: (r) => [
          action(
            "Test",
            async () => {
              const t = await post<TestResult>(`/registries/${enc(r.name)}/test`)
              toast(`${r.name}: ${t.message}`, t.ok ? "info" : "error")
              reload()
            },
            { label: `Test ${r.name}` },
          ),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "small",
              "data-needs": "admin",
              "aria-label": `Edit ${r.name}`,
              onclick: () => editDialog(r, reload),
            },
            "Edit",
          ),
          " ",
          action("Remove", () => del(`/registries/${enc(r.name)}`), {
            class: "small danger",
            needs: "admin",
            label: `Remove ${r.name}`,
            confirm: `Forget the registry ${r.name} and its password? Its images are pulled anonymously from then on.`,
            done: () => (toast(`Removed ${r.name}`), reload()),
          }),
        ],
      },
    ],
    "No registry kept yet: images are pulled anonymously.",
    "Kept registries",
  )
}

function pullForm(): HTMLElement {
  const ref = h("input", { id: "pull-ref", required: true, placeholder: "ghcr.io/my-org/app:1.4", class: "mono" })
  const said = h("div", { "aria-live": "polite" })
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "pull-h", "data-needs": "operator" },
    h("h2", { id: "pull-h" }, "Pull an image"),
    h("div", { class: "field" }, h("label", { for: "pull-ref" }, "Image"), ref),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Pull")),
    said,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(said, h("p", { class: "loading", "aria-busy": "true" }, `Pulling ${ref.value}…`))
    try {
      const p = await post<v.InferOutput<typeof pullResultSchema>>("/images/pull", { ref: ref.value.trim() })
      render(
        said,
        h(
          "p",
          { class: "ok", role: "status" },
          `Pulled ${p.ref} (${p.id.slice(7, 19)}) from ${p.registry}, ${p.credentials ? `with the credentials of ${p.credentials}` : "anonymously"}${p.pull_quota ? `; before it: ${quotaText(p.pull_quota)}` : ""}.`,
        ),
      )
    } catch (err) {
      render(said, errorBox(err))
    }
  })
  return form
}

function hubQuota(): HTMLElement {
  const shown = h("span", { "aria-live": "polite" }, "not asked yet")
  return h(
    "section",
    { class: "card", "aria-labelledby": "hub-h" },
    h("h2", { id: "hub-h" }, "Docker Hub"),
    h(
      "p",
      null,
      "Remaining pulls: ",
      shown,
      " ",
      action(
        "Ask Docker Hub",
        async () => {
          const q = await get<v.InferOutput<typeof hubQuotaSchema>>("/images/pull-quota")
          render(shown, `${quotaText(q.quota)}, ${q.registry ? `with the credentials of ${q.registry}` : "anonymous"}`)
        },
        { label: "Ask Docker Hub for its pull quota" },
      ),
    ),
  )
}

function importResult(r: v.InferOutput<typeof importResultSchema>): HTMLElement {
  return h(
    "div",
    { role: "status" },
    h(
      "p",
      null,
      `Read ${r.file}: ${r.imported.length} imported${r.imported.length ? ` (${r.imported.map((i) => i.name).join(", ")})` : ""}.`,
    ),
    r.skipped.length
      ? h(
          "ul",
          null,
          r.skipped.map((s) => h("li", null, h("span", { class: "mono" }, s.address), `: ${s.reason}`)),
        )
      : null,
  )
}

export function registriesPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const list = h("section", { class: "card", "aria-labelledby": "registries-h" })
  const imported = h("div", { "aria-live": "polite" })
  render(
    main,
    h("h1", null, "Registries"),
    h(
      "p",
      { class: "muted" },
      "Credentials of private registries: every pull, deploy, swarm deploy, update check and scan of their images uses them. An engine trusts a private CA from its /etc/docker/certs.d/<host>/ca.crt.",
    ),
    list,
    hubQuota(),
    pullForm(),
    addForm(() => void reload()),
    h(
      "section",
      { class: "card", "aria-labelledby": "registry-import-h", "data-needs": "admin" },
      h("h2", { id: "registry-import-h" }, "Import"),
      h("p", null, "Keep the credentials the host's docker CLI has in its config.json (once)."),
      action(
        "Import from the host's docker configuration",
        async () => {
          render(imported, importResult(await post("/registries/import")))
          void reload()
        },
        { needs: "admin" },
      ),
      imported,
    ),
  )
  const reload = load(
    list,
    () => get<Registry[]>("/registries", { signal }),
    (registries) => [
      h("h2", { id: "registries-h" }, "Kept registries"),
      registriesTable(registries, () => void reload()),
    ],
  )
}
