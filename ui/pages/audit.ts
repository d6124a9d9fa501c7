// The audit log (admins): who did what, when, with which result and from where; filters, and older
// entries a page at a time.
import type * as v from "valibot"
import type { auditEntrySchema } from "#lib/auth/schemas.ts"
import { get } from "../api.ts"
import { badge, errorBox, h, render, table, when } from "../dom.ts"

type Entry = v.InferOutput<typeof auditEntrySchema>
interface Page {
  entries: Entry[]
  next: string | null
}

/** The result filter as the statuses it takes: refused is 401 to 403, any error 400 and up. */
const RESULTS: Record<string, { label: string; range?: [string, string] }> = {
  any: { label: "any" },
  ok: { label: "ok", range: ["0", "399"] },
  refused: { label: "refused (401, 403)", range: ["401", "403"] },
  error: { label: "any error (4xx, 5xx)", range: ["400", "599"] },
}

const what = (e: Entry) => [
  e.action && h("strong", null, e.action, " "),
  h("span", { class: "mono" }, `${e.method} ${e.route}`),
  e.tool && h("span", { class: "muted" }, ` tool ${e.tool}`),
]
const target = (e: Entry) =>
  Object.entries(e.target)
    .map(([k, val]) => `${k}=${val}`)
    .join(" ") || "—"
const who = (e: Entry) =>
  e.user
    ? [e.user, h("small", { class: "muted" }, ` ${e.source ?? ""} ${e.role ?? ""}`, e.token && ` token ${e.token}`)]
    : h("span", { class: "muted" }, "nobody")

export function auditPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const field = (id: string, label: string, input: HTMLInputElement | HTMLSelectElement) =>
    h("div", { class: "field" }, h("label", { for: id }, label), input)
  const user = h("input", { id: "audit-user", placeholder: "any" })
  const route = h("input", { id: "audit-route", placeholder: "/api/stacks" })
  const action = h("input", { id: "audit-action", placeholder: "login, ws.open, mcp.tool" })
  const result = h(
    "select",
    { id: "audit-result" },
    Object.entries(RESULTS).map(([value, r]) => h("option", { value }, r.label)),
  )
  const since = h("input", { id: "audit-since", type: "datetime-local" })
  const rows = h("div")
  const more = h("div", { class: "actions" })
  let entries: Entry[] = []

  const query = (cursor: string | null) => {
    const q = new URLSearchParams({ limit: "100" })
    if (user.value.trim()) q.set("user", user.value.trim())
    if (route.value.trim()) q.set("route", route.value.trim())
    if (action.value.trim()) q.set("action", action.value.trim())
    const range = RESULTS[result.value]?.range
    if (range) q.set("status_min", range[0]), q.set("status_max", range[1])
    if (since.value) q.set("since", new Date(since.value).toISOString())
    if (cursor) q.set("cursor", cursor)
    return `/audit?${q}`
  }
  const show = async (cursor: string | null) => {
    try {
      const page = await get<Page>(query(cursor), { local: true, signal })
      entries = cursor ? [...entries, ...page.entries] : page.entries
      render(
        rows,
        table(
          entries,
          [
            { title: "When", cell: (e) => h("span", { class: "nowrap" }, when(e.time)) },
            { title: "Who", cell: who },
            { title: "What", cell: what },
            { title: "Target", cell: (e) => h("span", { class: "mono" }, target(e)) },
            {
              title: "Result",
              cell: (e) =>
                h("span", { class: "nowrap" }, badge(e.result), h("small", { class: "muted" }, ` ${e.status}`)),
            },
            { title: "From", cell: (e) => h("span", { class: "mono" }, e.peer ?? "—") },
          ],
          "No entries match.",
          "Audit log",
        ),
      )
      render(more, page.next && h("button", { type: "button", onclick: () => void show(page.next) }, "Older entries"))
    } catch (err) {
      if ((err as Error)?.name !== "AbortError")
        render(
          rows,
          errorBox(err, () => void show(cursor)),
        )
    }
  }
  const filters = h(
    "form",
    { class: "card filters", "aria-label": "Filters" },
    field("audit-user", "User", user),
    field("audit-route", "Route", route),
    field("audit-action", "Action", action),
    field("audit-result", "Result", result),
    field("audit-since", "Since", since),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Filter")),
  )
  filters.addEventListener("submit", (e) => {
    e.preventDefault()
    void show(null)
  })
  render(main, h("h1", null, "Audit log"), filters, rows, more)
  void show(null)
}
