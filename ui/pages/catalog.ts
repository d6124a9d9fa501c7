// The catalog: every source's templates searched and filtered by category and source, each with its
// logo as this service serves it (a browser asks no one else unless the person allows logos from their
// own sites), the sources with their last read (admins add, refresh and remove them), and a template's
// page: its form built from its variables (secrets as password fields generated when left empty,
// choices as selects, each wrong value said beside its field), the preview of its compose file and of
// what the guard says before anything runs, the install (with a guarded update policy and a backup
// schedule, both on by default), and after it the secrets generated, shown once, and the note.
import type * as v from "valibot"
import type {
  previewSchema,
  sourceSchema,
  templateDetail,
  templateSummary,
  installResult,
} from "#lib/catalog/schemas.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { del, enc, get, post } from "../api.ts"
import { action, copyText, empty, errorBox, h, load, render, table, toast, when } from "../dom.ts"
import { editorModule } from "../code-editor.ts"

type Summary = v.InferOutput<typeof templateSummary>
type Detail = v.InferOutput<typeof templateDetail>
type Source = v.InferOutput<typeof sourceSchema>
type Preview = v.InferOutput<typeof previewSchema>
type Installed = Extract<v.InferOutput<typeof installResult>, { dry_run: false }>

const REMOTE_LOGOS = "hm.catalog.remoteLogos"
const remoteLogos = () => globalThis.localStorage?.getItem(REMOTE_LOGOS) === "1"

/** A template's logo: the service's copy (or, when allowed, its own address), a monogram when there is none or it fails. */
function logo(t: Summary, size = 48): HTMLElement {
  const mono = h(
    "span",
    { class: "logo mono-logo", "aria-hidden": "true", style: `width:${size}px;height:${size}px` },
    t.title.slice(0, 2),
  )
  const src = remoteLogos() && t.logo_url ? t.logo_url : t.logo
  if (!src) return mono
  const img = h("img", { class: "logo", src, alt: "", width: size, height: size, loading: "lazy" })
  img.addEventListener("error", () => img.replaceWith(mono))
  return img
}

function card(t: Summary): HTMLElement {
  return h(
    "a",
    { class: "card template-card", href: `#/catalog/${enc(t.source)}/${enc(t.id)}` },
    logo(t),
    h(
      "div",
      null,
      h("strong", null, t.title),
      t.version && h("span", { class: "muted" }, ` ${t.version}`),
      h("p", { class: "muted clamp" }, t.description),
      h(
        "div",
        { class: "tags" },
        t.categories.slice(0, 4).map((c) => h("span", { class: "badge" }, c)),
      ),
    ),
  )
}

function sourcesCard(signal: AbortSignal, changed: () => void): HTMLElement {
  const el = h("section", { class: "card", "aria-labelledby": "sources-h" })
  const reload = load(
    el,
    () => get<Source[]>("/catalog/sources", { signal }),
    (sources) => [
      h("h2", { id: "sources-h" }, "Sources"),
      table(
        sources,
        [
          { title: "Name", cell: (s) => s.name },
          {
            title: "Where",
            cell: (s) =>
              s.built_in
                ? h("span", { class: "muted" }, s.name === "curated" ? "shipped with the service" : "saved here")
                : h("span", { class: "mono" }, s.url ?? `${s.git!.url} (${s.git!.ref}:${s.git!.path})`),
          },
          {
            title: "Last read",
            cell: (s) =>
              s.built_in || !s.last_read
                ? "—"
                : s.last_read.ok
                  ? `${when(s.last_read.time)}: ${s.last_read.templates} templates`
                  : h("span", { class: "error-text" }, `${when(s.last_read.time)}: ${s.last_read.error}`),
          },
          {
            title: "Actions",
            cell: (s) =>
              s.built_in
                ? null
                : h(
                    "div",
                    { class: "actions" },
                    action("Refresh", () => post(`/catalog/sources/${enc(s.name)}/refresh`), {
                      label: `Refresh ${s.name}`,
                      done: () => (void reload(), changed()),
                    }),
                    action("Remove", () => del(`/catalog/sources/${enc(s.name)}`), {
                      class: "small danger",
                      needs: "admin",
                      label: `Remove ${s.name}`,
                      confirm: `Forget the source ${s.name}? Stacks installed from it keep running.`,
                      done: () => (void reload(), changed()),
                    }),
                  ),
          },
        ],
        "No source.",
        "Template sources",
      ),
      addSource(() => (void reload(), changed())),
    ],
  )
  return el
}

function addSource(added: () => void): HTMLElement {
  const name = h("input", { id: "src-name", required: true, pattern: "[a-z0-9][a-z0-9\\-]*", maxLength: 63 })
  const where = h("input", { id: "src-url", required: true, class: "mono", placeholder: "https://…/templates.json" })
  const kind = h(
    "select",
    { id: "src-kind" },
    h("option", { value: "url" }, "Portainer list at a URL"),
    h("option", { value: "git-list" }, "Portainer list in a git repository"),
    h("option", { value: "git-folder" }, "Folder of templates in a git repository"),
  )
  const path = h("input", { id: "src-path", class: "mono", placeholder: "templates.json, or a folder" })
  const local = h("input", { id: "src-local", type: "checkbox" })
  const said = h("div", { "aria-live": "polite" })
  const field = (id: string, label: string, el: HTMLElement) =>
    h("div", { class: "field" }, h("label", { for: id }, label), el)
  const form = h(
    "form",
    { "data-needs": "admin", "aria-labelledby": "src-add-h" },
    h("h3", { id: "src-add-h" }, "Add a source"),
    field("src-name", "Name", name),
    field("src-kind", "Kind", kind),
    field("src-url", "URL", where),
    field("src-path", "Path in the repository", path),
    h("label", { class: "check" }, local, " On my own network (it may reach private addresses)"),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Add")),
    said,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(said)
    const git = kind.value !== "url"
    try {
      const s = await post<Source>("/catalog/sources", {
        name: name.value.trim(),
        format: kind.value === "git-folder" ? "folder" : "portainer",
        ...(git
          ? { git: { url: where.value.trim(), ...(path.value.trim() ? { path: path.value.trim() } : {}) } }
          : { url: where.value.trim() }),
        local: local.checked,
      })
      toast(
        s.last_read?.ok
          ? `${s.name}: ${s.last_read.templates} templates`
          : `${s.name} kept; its read failed: ${s.last_read?.error}`,
        s.last_read?.ok ? "info" : "error",
      )
      form.reset()
      added()
    } catch (err) {
      render(said, errorBox(err))
    }
  })
  return form
}

export function catalogPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "")
  const q = h("input", {
    type: "search",
    "aria-label": "Search the catalog",
    placeholder: "Search",
    value: params.get("q") ?? "",
  })
  const category = h("select", { "aria-label": "Category" }, h("option", { value: "" }, "Every category"))
  const source = h("select", { "aria-label": "Source" }, h("option", { value: "" }, "Every source"))
  const remote = h("input", { type: "checkbox", id: "remote-logos", checked: remoteLogos() })
  const grid = h("div", { class: "template-grid", "aria-live": "polite" })
  let all: Summary[] = []
  const draw = () => {
    const words = q.value.toLowerCase().split(/\s+/).filter(Boolean)
    const shown = all.filter(
      (t) =>
        words.every((w) => `${t.title} ${t.description} ${t.categories.join(" ")}`.toLowerCase().includes(w)) &&
        (!category.value || t.categories.includes(category.value)) &&
        (!source.value || t.source === source.value),
    )
    const keep = new URLSearchParams({
      ...(q.value ? { q: q.value } : {}),
      ...(category.value ? { category: category.value } : {}),
      ...(source.value ? { source: source.value } : {}),
    })
    history.replaceState(null, "", `#/catalog${keep.size ? `?${keep}` : ""}`)
    render(
      grid,
      h("p", { class: "muted" }, `${shown.length} of ${all.length} templates`),
      shown.length ? h("div", { class: "template-cards" }, shown.map(card)) : empty("No template matches."),
    )
  }
  const reload = load(
    grid,
    () => get<Summary[]>("/catalog/templates", { signal }),
    (list) => {
      all = list
      const fill = (select: HTMLSelectElement, values: string[], chosen: string | null) =>
        render(
          select,
          select.firstChild!,
          [...new Set(values)].sort().map((c) => h("option", { value: c, selected: c === chosen }, c)),
        )
      fill(
        category,
        list.flatMap((t) => t.categories),
        params.get("category"),
      )
      fill(
        source,
        list.map((t) => t.source),
        params.get("source"),
      )
      queueMicrotask(draw)
      return null
    },
  )
  for (const el of [q, category, source]) el.addEventListener("input", draw)
  remote.addEventListener("change", () => {
    localStorage.setItem(REMOTE_LOGOS, remote.checked ? "1" : "0")
    draw()
  })
  render(
    main,
    h("div", { class: "page-head" }, h("h1", null, "Catalog"), q, category, source),
    h(
      "p",
      { class: "muted" },
      "Apps to install as stacks: the curated ones shipped with the service work offline; each install is checked by the same guard as any deploy.",
    ),
    h("label", { class: "check" }, remote, " Load logos from their own sites (your browser then asks them)"),
    grid,
    sourcesCard(signal, () => void reload()),
  )
}

/** The form's field for one variable, and where its error is said. */
function variableField(v: Detail["variables"][number]) {
  const id = `var-${v.key}`
  const error = h("span", { class: "field-error", id: `${id}-error`, role: "alert" })
  const common = { id, name: v.key, "aria-describedby": `${id}-hint ${id}-error` }
  const input: HTMLInputElement | HTMLSelectElement = v.choices.length
    ? h(
        "select",
        common,
        v.choices.map((c) => h("option", { value: c.value, selected: c.value === v.default }, c.label)),
      )
    : v.type === "boolean"
      ? h(
          "select",
          common,
          ["true", "false"].map((b) =>
            h("option", { value: b, selected: b === (v.default ?? "false") }, b === "true" ? "Yes" : "No"),
          ),
        )
      : h("input", {
          ...common,
          type: v.secret ? "password" : v.type === "port" || v.type === "number" ? "number" : "text",
          ...(v.type === "port" ? { min: 1, max: 65535 } : {}),
          autocomplete: v.secret ? "new-password" : "off",
          value: v.secret ? "" : (v.default ?? ""),
          placeholder: v.secret && v.generate ? "generated at install" : "",
          required: v.required && !v.generate && !v.default,
        })
  const hint = [v.description, v.secret ? "Kept as a secret: never shown again." : ""].filter(Boolean).join(" ")
  return {
    key: v.key,
    input,
    error,
    el: h(
      "div",
      { class: "field" },
      h("label", { for: id }, v.label, v.secret ? " (secret)" : ""),
      input,
      h("span", { class: "muted", id: `${id}-hint` }, hint),
      error,
    ),
  }
}

function previewView(p: Preview): HTMLElement {
  const g = p.guard
  // The compose file as text at once, then in the editor (read only) once its module has loaded.
  const composeEl = h("pre", { class: "compose-preview", "aria-label": `Compose file of ${p.title}` }, p.compose)
  void editorModule().then(
    (m) =>
      composeEl.replaceWith(
        m.create({ text: p.compose, label: `Compose file of ${p.title}`, mode: "compose", readOnly: true }).el,
      ),
    () => {},
  )
  return h(
    "section",
    { class: "card", "aria-label": "Preview" },
    h("h2", null, "Preview"),
    g.ok
      ? h(
          "p",
          { class: "ok", role: "status" },
          `The guard passes it: ${g.services.length} service(s) (${g.services.join(", ")}).`,
        )
      : h("p", { class: "error-text", role: "alert" }, `The guard refuses it (${g.code}): ${g.message}`),
    p.blockers.length
      ? h(
          "ul",
          { class: "error-text" },
          p.blockers.map((b) => h("li", null, b)),
        )
      : null,
    g.warnings.length
      ? h(
          "ul",
          { class: "warnings" },
          g.warnings.map((w) => h("li", null, w)),
        )
      : null,
    g.ok &&
      h(
        "dl",
        { class: "facts" },
        h("dt", null, "Images"),
        h("dd", { class: "mono" }, g.images.join(", ") || "—"),
        h("dt", null, "Ports"),
        h("dd", null, g.ports.map((x) => `${x.ip ? `${x.ip}:` : ""}${x.port}/${x.protocol}`).join(", ") || "none"),
        h("dt", null, "Volumes"),
        h("dd", { class: "mono" }, g.volumes.join(", ") || "none"),
        h("dt", null, "Binds"),
        h("dd", { class: "mono" }, g.binds.map((b) => `${b.source} → ${b.target}`).join(", ") || "none"),
        h("dt", null, "Environment"),
        h(
          "dd",
          { class: "mono" },
          p.env.map((e) => `${e.key}=${e.secret ? (e.generated ? "(generated)" : "(secret)") : e.value}`).join("  "),
        ),
        h("dt", null, "Update policy"),
        h("dd", null, p.update_policy ? `${p.update_policy.auto_update}, ${p.update_policy.schedule}` : "none"),
        h("dt", null, "Backups"),
        h("dd", null, p.backup ? `${p.backup.repository}, ${p.backup.schedule}` : "none"),
      ),
    h("h3", null, "Compose file"),
    h("div", { class: "compose-view" }, composeEl),
  )
}

function installedView(r: Installed): HTMLElement {
  return h(
    "section",
    { class: "card", role: "status", "aria-label": "Installed" },
    h("h2", null, `Installed ${r.title} as `, h("a", { href: `#/stacks/${enc(r.name)}` }, r.name)),
    r.generated.length
      ? [
          h("p", null, h("strong", null, "These secrets were generated and are shown this once: keep them now.")),
          h(
            "ul",
            { class: "secrets" },
            r.generated.map((g) => {
              const field = h("input", { readOnly: true, value: g.value, class: "mono", "aria-label": g.key })
              return h(
                "li",
                null,
                h("span", { class: "mono" }, `${g.key} `),
                field,
                " ",
                h("button", { type: "button", class: "small", onclick: () => void copyText(g.value, field) }, "Copy"),
              )
            }),
          ),
        ]
      : null,
    r.note && h("p", { class: "note" }, r.note),
    h(
      "p",
      { class: "muted" },
      `Update policy: ${r.policy ? `${r.policy.auto_update}, ${r.policy.schedule}` : "none"}. Backups: ${r.backup ? `${r.backup.repository}, ${r.backup.schedule}` : "none"}.`,
    ),
  )
}

export function templatePage(main: HTMLElement, params: Record<string, string>, signal: AbortSignal): void {
  const { source, id } = params as { source: string; id: string }
  load(
    main,
    async () => ({
      t: await get<Detail>(`/catalog/templates/${enc(source)}/${enc(id)}`, { signal }),
      repos: await get<{ name: string; schedule?: string }[]>("/backups/repos", { signal }).catch(() => []),
    }),
    ({ t, repos }) => {
      const name = h("input", {
        id: "install-name",
        required: true,
        pattern: "[a-z0-9][a-z0-9_\\-]*",
        maxLength: 63,
        value: t.id.replace(/[^a-z0-9_-]/g, "-"),
      })
      const nameError = h("span", { class: "field-error", id: "install-name-error", role: "alert" })
      const fields = t.variables.map(variableField)
      const policy = h("input", { type: "checkbox", id: "install-policy", checked: true })
      const backup = h("input", {
        type: "checkbox",
        id: "install-backup",
        checked: repos.length > 0,
        disabled: repos.length === 0,
      })
      const repo = h(
        "select",
        { "aria-label": "Backup repository", disabled: repos.length === 0 },
        repos.map((r) => h("option", { value: r.name }, `${r.name}${r.schedule ? ` (${r.schedule})` : ""}`)),
      )
      const previewEl = h("div", { "aria-live": "polite" })
      const result = h("div", { "aria-live": "polite" })
      const installButton = h(
        "button",
        { type: "button", class: "primary", disabled: true, "data-needs": "operator" },
        "Install",
      )
      const body = () => ({
        name: name.value.trim(),
        values: Object.fromEntries(fields.filter((f) => f.input.value !== "").map((f) => [f.key, f.input.value])),
        update_policy: policy.checked,
        backup: backup.checked && repo.value ? repo.value : null,
      })
      const showErrors = (err: unknown) => {
        for (const f of fields) {
          f.error.textContent = ""
          f.input.removeAttribute("aria-invalid")
        }
        nameError.textContent = ""
        const wrong =
          err instanceof HttpError ? (err.extras.body?.fields as Record<string, string> | undefined) : undefined
        if (wrong)
          for (const f of fields)
            if (wrong[f.key]) {
              f.error.textContent = wrong[f.key]!
              f.input.setAttribute("aria-invalid", "true")
            }
        if (err instanceof HttpError && err.code === "invalid_name") nameError.textContent = err.message
        return !!wrong || (err instanceof HttpError && err.code === "invalid_name")
      }
      const form = h(
        "form",
        { class: "card", "aria-labelledby": "install-h" },
        h("h2", { id: "install-h" }, "Install"),
        h("div", { class: "field" }, h("label", { for: "install-name" }, "Stack name"), name, nameError),
        fields.map((f) => f.el),
        h(
          "label",
          { class: "check" },
          policy,
          " Guarded updates: apply new images of the same tags nightly, watched, rolled back when unhealthy",
        ),
        h(
          "div",
          { class: "check" },
          h("label", { for: "install-backup" }, backup, " Back up its volumes in "),
          repo,
          repos.length ? null : h("span", { class: "muted" }, " (no backup repository kept)"),
        ),
        h("div", { class: "actions" }, h("button", { type: "submit" }, "Preview"), installButton),
      )
      form.addEventListener("input", () => (installButton.disabled = true))
      form.addEventListener("submit", async (e) => {
        e.preventDefault()
        installButton.disabled = true
        render(previewEl, h("p", { class: "loading", "aria-busy": "true" }, "Asking the guard…"))
        try {
          const p = await post<Preview>(`/catalog/templates/${enc(source)}/${enc(id)}/preview`, body(), { signal })
          showErrors(null)
          render(previewEl, previewView(p))
          installButton.disabled = p.blockers.length > 0
        } catch (err) {
          render(
            previewEl,
            showErrors(err)
              ? h("p", { class: "error-text", role: "alert" }, "Some values need a change: see the fields.")
              : errorBox(err),
          )
        }
      })
      installButton.addEventListener("click", async () => {
        installButton.disabled = true
        installButton.setAttribute("aria-busy", "true")
        render(result, h("p", { class: "loading", "aria-busy": "true" }, "Installing…"))
        try {
          const r = await post<Installed>(`/catalog/templates/${enc(source)}/${enc(id)}/install`, body())
          render(result, installedView(r))
          render(previewEl)
        } catch (err) {
          render(result, errorBox(err))
        } finally {
          installButton.removeAttribute("aria-busy")
        }
      })
      return [
        h("p", null, h("a", { href: "#/catalog" }, "← Catalog")),
        h(
          "div",
          { class: "page-head template-head" },
          logo({ ...t }, 64),
          h("h1", null, t.title),
          t.version && h("span", { class: "badge" }, t.version),
          h("span", { class: "badge" }, `${t.source} · ${t.kind}`),
        ),
        h("p", null, t.description),
        t.warnings.length
          ? h(
              "ul",
              { class: "warnings" },
              t.warnings.map((w) => h("li", null, w)),
            )
          : null,
        t.repository &&
          h(
            "p",
            { class: "muted" },
            "Its compose file is read from ",
            h("span", { class: "mono" }, `${t.repository.url} (${t.repository.path})`),
            " at preview.",
          ),
        result,
        form,
        previewEl,
      ]
    },
  )
}
