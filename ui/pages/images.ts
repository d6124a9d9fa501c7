// Images: the local images with their scan summaries and update state, scans, the CVE list of a
// scan, delete.
import { del, enc, get, post } from "../api.ts"
import { action, bytes, empty, errorBox, h, load, modal, render, table, toast, when } from "../dom.ts"
import { listView } from "../list-view.ts"
import type { ListSpec } from "../lists.ts"
import { shortId, type Image, type ScanResult, type ScanSummary, type Severity } from "../model.ts"

const SEVERITIES: Severity[] = ["critical", "high", "medium", "low", "negligible", "unknown"]

/** The severities a scan found, most severe first, with their counts. */
const severityCounts = (scan: ScanSummary): [Severity, number][] =>
  SEVERITIES.map((s): [Severity, number] => [s, scan.counts[s] ?? 0]).filter(([, n]) => n > 0)

function scanCell(i: Image): HTMLElement {
  const s = i.scan
  if (i.scan_state) return h("span", { class: "badge state-restarting" }, `scan ${i.scan_state}`)
  if (!s) return h("span", { class: "muted" }, "not scanned")
  if (s.status === "failed") return h("span", { class: "error-text" }, `scan failed: ${s.error ?? ""}`)
  const counts = severityCounts(s)
  return h(
    "span",
    { class: "sev-list" },
    counts.length
      ? counts.map(([sev, n]) => h("span", { class: `sev sev-${sev}`, title: sev }, `${n} ${sev}`))
      : h("span", { class: "sev sev-none" }, "no known CVEs"),
    h("small", { class: "muted" }, ` ${when(s.scanned_at)}${s.scanner ? ` · ${s.scanner}` : ""}`),
  )
}

const updateCell = (i: Image): string =>
  i.update_available === null ? "—" : i.update_available ? "update available" : "up to date"

async function showScan(i: Image): Promise<void> {
  const body = h("div", { class: "cve-list" })
  const title = i.tags[0] ?? shortId(i.id)
  const closed = modal(`Vulnerabilities of ${title}`, body, (close) =>
    h("button", { type: "button", onclick: () => close("close") }, "Close"),
  )
  load(
    body,
    () => get<ScanResult>(`/images/${enc(i.id)}/scan`),
    (r) => {
      if (!("vulnerabilities" in r)) return empty("Not scanned yet.")
      const cves = r.vulnerabilities
      return [
        h(
          "p",
          { class: "muted" },
          `Scanned ${when(r.scanned_at)}${r.scanner ? ` by ${r.scanner}` : ""}: ${cves.length} finding${cves.length === 1 ? "" : "s"}.`,
        ),
        r.error && errorBox(new Error(r.error)),
        table(
          cves,
          [
            {
              title: "ID",
              class: "nowrap",
              cell: (c) =>
                c.link ? h("a", { href: c.link, target: "_blank", rel: "noopener noreferrer" }, c.id) : c.id,
            },
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

const imageName = (i: Image) => i.tags[0] ?? shortId(i.id)
const found = (i: Image, sev: Severity) => i.scan?.counts[sev] ?? 0

const imageSpec: ListSpec<Image> = {
  text: (i) => `${i.tags.join(" ")} ${i.id}`,
  filters: {
    scan: {
      label: "Vulnerabilities",
      choices: [
        ["critical", "Critical"],
        ["high", "Critical or high"],
        ["any", "Any finding"],
        ["none", "Not scanned"],
      ],
      test: (i, v) =>
        v === "none"
          ? !i.scan
          : v === "critical"
            ? found(i, "critical") > 0
            : v === "high"
              ? found(i, "critical") + found(i, "high") > 0
              : v === "any"
                ? SEVERITIES.some((s) => found(i, s) > 0)
                : true,
    },
    update: {
      label: "Update",
      choices: [
        ["available", "Available"],
        ["none", "Up to date"],
        ["unknown", "Not checked"],
      ],
      test: (i, v) =>
        i.update_available === ({ available: true, none: false, unknown: null } as Record<string, boolean | null>)[v],
    },
  },
  sorts: {
    name: { label: "Name", value: (i) => (i.tags.length ? i.tags[0]! : null) },
    size: { label: "Size", value: (i) => i.size, desc: true },
    created: { label: "Created", value: (i) => Date.parse(String(i.created)) || null, desc: true },
    cves: {
      label: "Vulnerabilities",
      value: (i) => (i.scan ? found(i, "critical") * 1e6 + found(i, "high") * 1e3 + found(i, "medium") : null),
      desc: true,
    },
  },
}

export function imagesPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const status = h("div")
  const view = listView<Image>({
    noun: "images",
    spec: imageSpec,
    columns: [
      {
        title: "Image",
        sort: "name",
        cell: (i) => h("span", { class: "mono" }, i.tags.join(", ") || `${shortId(i.id)} (untagged)`),
      },
      { title: "Size", sort: "size", cell: (i) => bytes(i.size) },
      { title: "Created", sort: "created", cell: (i) => when(i.created) },
      { title: "Vulnerabilities", sort: "cves", cell: scanCell },
      { title: "Update", cell: updateCell },
      {
        title: "Actions",
        cell: (i) =>
          h(
            "div",
            { class: "actions" },
            action("Scan", () => post(`/images/${enc(i.id)}/scan`), {
              done: () => (toast("Scan queued"), void reload()),
              label: `Scan ${imageName(i)}`,
            }),
            i.scan &&
              h(
                "button",
                {
                  type: "button",
                  class: "small",
                  "aria-label": `CVEs of ${imageName(i)}`,
                  onclick: () => void showScan(i),
                },
                "CVEs",
              ),
            action("Delete", () => del(`/images/${enc(i.id)}`), {
              class: "small danger",
              label: `Delete ${imageName(i)}`,
              confirm: `Delete image ${i.tags.join(", ") || shortId(i.id)}? It is removed even if containers use it.`,
              done: () => void reload(),
            }),
          ),
      },
    ],
    key: (i) => i.id,
    name: (i) => i.tags.join(", ") || shortId(i.id),
    bulk: [
      {
        label: "Delete",
        done: "deleted",
        danger: true,
        warning: "They are removed even if containers use them.",
        applies: () => true,
        run: (i) => del(`/images/${enc(i.id)}`),
      },
    ],
    empty: "No images on this server.",
    changed: () => void reload(),
  })
  render(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Images"),
      action("Scan all", () => post("/images/scan"), {
        class: "",
        done: () => toast("Scans queued; the summaries fill in as they finish"),
      }),
      h("button", { type: "button", onclick: () => void reload() }, "Refresh"),
    ),
    view.tools,
    status,
    view.body,
  )
  const reload = load(
    status,
    () => get<Image[]>("/images", { signal }),
    (images) => {
      // While scans wait or run, the list refreshes itself until they are done.
      if (images.some((i) => i.scan_state)) setTimeout(() => signal.aborted || void reload(), 2000)
      view.show(images)
      return null
    },
  )
}
