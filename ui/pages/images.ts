// Images: the local images with their scan summaries and update state, scans, the CVE list of a
// scan, delete.
import { del, enc, get, post } from "../api.ts"
import { action, bytes, empty, errorBox, h, load, modal, render, table, toast, when } from "../dom.ts"
import { shortId, type Image, type ScanResult, type ScanSummary, type Severity } from "../model.ts"

const SEVERITIES: Severity[] = ["critical", "high", "medium", "low", "negligible", "unknown"]

/** The severities a scan found, most severe first, with their counts. */
const severityCounts = (scan: ScanSummary): [Severity, number][] => SEVERITIES.map((s): [Severity, number] => [s, scan.counts[s] ?? 0]).filter(([, n]) => n > 0)

function scanCell(i: Image): HTMLElement {
  const s = i.scan
  if (i.scan_state) return h("span", { class: "badge state-restarting" }, `scan ${i.scan_state}`)
  if (!s) return h("span", { class: "muted" }, "not scanned")
  if (s.status === "failed") return h("span", { class: "error-text" }, `scan failed: ${s.error ?? ""}`)
  const counts = severityCounts(s)
  return h(
    "span",
    { class: "sev-list" },
    counts.length ? counts.map(([sev, n]) => h("span", { class: `sev sev-${sev}`, title: sev }, `${n} ${sev}`)) : h("span", { class: "sev sev-none" }, "no known CVEs"),
    h("small", { class: "muted" }, ` ${when(s.scanned_at)}${s.scanner ? ` · ${s.scanner}` : ""}`),
  )
}

const updateCell = (i: Image): string => (i.update_available === null ? "—" : i.update_available ? "update available" : "up to date")

async function showScan(i: Image): Promise<void> {
  const body = h("div", { class: "cve-list" })
  const title = i.tags[0] ?? shortId(i.id)
  const closed = modal(`Vulnerabilities of ${title}`, body, (close) => h("button", { type: "button", onclick: () => close("close") }, "Close"))
  load(
    body,
    () => get<ScanResult>(`/images/${enc(i.id)}/scan`),
    (r) => {
      if (!("vulnerabilities" in r)) return empty("Not scanned yet.")
      const cves = r.vulnerabilities
      return [
        h("p", { class: "muted" }, `Scanned ${when(r.scanned_at)}${r.scanner ? ` by ${r.scanner}` : ""}: ${cves.length} finding${cves.length === 1 ? "" : "s"}.`),
        r.error && errorBox(new Error(r.error)),
        table(
          cves,
          [
            { title: "ID", class: "nowrap", cell: (c) => (c.link ? h("a", { href: c.link, target: "_blank", rel: "noopener noreferrer" }, c.id) : c.id) },
            { title: "Severity", cell: (c) => h("span", { class: `sev sev-${c.severity}` }, c.severity) },
            { title: "Package", cell: (c) => c.package },
            { title: "Installed", class: "nowrap", cell: (c) => c.installed },
            { title: "Fixed in", class: "nowrap", cell: (c) => c.fixed ?? "—" },
            { title: "Title", cell: (c) => c.title ?? "" },
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
    () => get<Image[]>("/images", { signal }),
    (images) => {
      // While scans wait or run, the list refreshes itself until they are done.
      if (images.some((i) => i.scan_state)) setTimeout(() => signal.aborted || void reload(), 2000)
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
