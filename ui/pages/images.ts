// Images: the local images with their scan summaries and update state, scans, the CVE list of a
// scan, delete.
import { del, enc, get, post } from "../api.ts"
import { action, bytes, empty, errorBox, h, load, modal, render, table, toast, when } from "../dom.ts"
import { image, listOf, shortId, type Image } from "../model.ts"

const SEVERITIES = ["critical", "high", "medium", "low", "negligible", "unknown"]

/** Counts by severity from a scan summary, whatever its exact nesting. */
function severityCounts(scan: any): [string, number][] {
  const counts = scan?.counts ?? scan?.severities ?? scan?.by_severity ?? scan?.summary ?? scan
  if (!counts || typeof counts !== "object") return []
  return SEVERITIES.map((s) => [s, Number(counts[s] ?? counts[s.toUpperCase()] ?? counts[s[0]!.toUpperCase() + s.slice(1)] ?? 0)] as [string, number]).filter(([, n]) => n > 0)
}

function scanCell(i: Image): HTMLElement {
  const s = i.scan
  if (i.scanState) return h("span", { class: "badge state-restarting" }, `scan ${i.scanState}`)
  if (!s) return h("span", { class: "muted" }, "not scanned")
  const state = s.status ?? s.state
  if (state && !["done", "complete", "completed", "ok", "finished"].includes(state)) return h("span", { class: state === "failed" || state === "error" ? "error-text" : "muted" }, state === "failed" || state === "error" ? `scan failed: ${s.error ?? ""}` : `scan ${state}`)
  const counts = severityCounts(s)
  return h(
    "span",
    { class: "sev-list" },
    counts.length ? counts.map(([sev, n]) => h("span", { class: `sev sev-${sev}`, title: sev }, `${n} ${sev}`)) : h("span", { class: "sev sev-none" }, "no known CVEs"),
    h("small", { class: "muted" }, ` ${when(s.scanned_at ?? s.time ?? s.finished_at)}${s.scanner ? ` · ${s.scanner}` : ""}`),
  )
}

function updateCell(i: Image): string {
  const u = i.update
  if (u === undefined || u === null) return "—"
  if (typeof u === "boolean") return u ? "update available" : "up to date"
  if (u.error) return `check failed: ${u.error}`
  return u.available ?? u.update_available ?? u.newer ? "update available" : `up to date${u.checked_at ? ` (${when(u.checked_at)})` : ""}`
}

async function showScan(i: Image): Promise<void> {
  const body = h("div", { class: "cve-list" })
  const title = i.tags[0] ?? shortId(i.id)
  const closed = modal(`Vulnerabilities of ${title}`, body, (close) => h("button", { type: "button", onclick: () => close("close") }, "Close"))
  load(
    body,
    () => get(`/images/${enc(i.id)}/scan`),
    (r) => {
      const cves = listOf(r, "vulnerabilities").length ? listOf(r, "vulnerabilities") : listOf(r, "cves")
      return [
        h("p", { class: "muted" }, `Scanned ${when(r.scanned_at ?? r.time ?? r.finished_at)}${r.scanner ? ` by ${r.scanner}` : ""}: ${cves.length} finding${cves.length === 1 ? "" : "s"}.`),
        r.error && errorBox(new Error(r.error)),
        table(
          cves,
          [
            { title: "ID", class: "nowrap", cell: (c: any) => (c.link ?? c.url ? h("a", { href: c.link ?? c.url, target: "_blank", rel: "noopener noreferrer" }, c.id) : c.id) },
            { title: "Severity", cell: (c: any) => h("span", { class: `sev sev-${String(c.severity).toLowerCase()}` }, String(c.severity).toLowerCase()) },
            { title: "Package", cell: (c: any) => c.package ?? c.pkg },
            { title: "Installed", class: "nowrap", cell: (c: any) => c.installed ?? c.installed_version ?? c.version },
            { title: "Fixed in", class: "nowrap", cell: (c: any) => c.fixed ?? c.fixed_version ?? "—" },
            { title: "Title", cell: (c: any) => c.title ?? c.description ?? "" },
          ],
          "No vulnerabilities found.",
          "Vulnerabilities",
        ),
      ]
    },
  )
  await closed
}

export function imagesPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  render(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Images"),
      action("Scan all", () => post("/images/scan"), { class: "", done: () => toast("Scans queued; the summaries fill in as they finish") }),
      h("button", { type: "button", onclick: () => void reload() }, "Refresh"),
    ),
    body,
  )
  const reload = load(
    body,
    () => get("/images", { signal }),
    (data) => {
      const images = listOf(data, "images").map(image)
      // While scans wait or run, the list refreshes itself until they are done.
      if (images.some((i) => i.scanState)) setTimeout(() => signal.aborted || void reload(), 2000)
      if (!images.length) return empty("No images on this server.")
      return table(
        images,
        [
          { title: "Image", cell: (i) => h("span", { class: "mono" }, i.tags.join(", ") || `${shortId(i.id)} (untagged)`) },
          { title: "Size", cell: (i) => bytes(i.size) },
          { title: "Created", cell: (i) => when(i.created) },
          { title: "Vulnerabilities", cell: scanCell },
          { title: "Update", cell: updateCell },
          {
            title: "Actions",
            cell: (i) =>
              h(
                "div",
                { class: "actions" },
                action("Scan", () => post(`/images/${enc(i.id)}/scan`), { done: () => (toast("Scan queued"), void reload()), label: `Scan ${i.tags[0] ?? shortId(i.id)}` }),
                i.scan && h("button", { type: "button", class: "small", onclick: () => void showScan(i) }, "CVEs"),
                action("Delete", () => del(`/images/${enc(i.id)}`), { class: "small danger", confirm: `Delete image ${i.tags.join(", ") || shortId(i.id)}? It is removed even if containers use it.`, done: () => void reload() }),
              ),
          },
        ],
        "No images on this server.",
        "Images",
      )
    },
  )
}
