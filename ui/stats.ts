// Resource use in the UI: samples and history from the stats API as points, sparklines (a few
// bytes of inline SVG each, so 200 rows cost nothing), the live feed behind the containers list and
// the dashboard, and the resources tab of a container and of a stack (charts from ./charts.ts,
// loaded only there).
import { enc, follow, get } from "./api.ts"
import { bytes, errorBox, h, render, table } from "./dom.ts"
import type { Point } from "./charts.ts"

/** The API's history columns as points. */
export function historyPoints(hist: any): Point[] {
  const time: number[] = hist?.time ?? []
  return time.map((t, i) => ({
    t,
    cpu: hist.cpu_percent?.[i] ?? null,
    mem: hist.memory_bytes?.[i] ?? null,
    rx: hist.net_rx_bytes_per_s?.[i] ?? null,
    tx: hist.net_tx_bytes_per_s?.[i] ?? null,
    blkRead: hist.block_read_bytes_per_s?.[i] ?? null,
    blkWrite: hist.block_write_bytes_per_s?.[i] ?? null,
  }))
}

/** A sample (a container's, or a stack's sums) as a point. */
export function samplePoint(s: any): Point {
  return {
    t: Date.parse(s.time),
    cpu: s.cpu_percent ?? null,
    mem: s.memory_bytes ?? null,
    rx: s.net_rx_bytes_per_s ?? null,
    tx: s.net_tx_bytes_per_s ?? null,
    blkRead: s.block_read_bytes_per_s ?? null,
    blkWrite: s.block_write_bytes_per_s ?? null,
  }
}

export const percent = (v: number | null | undefined) =>
  v === null || v === undefined ? "—" : `${v < 10 ? v.toFixed(1) : v.toFixed(0)} %`

const SVG = "http://www.w3.org/2000/svg"

/** A small line of the last values (null is a gap), scaled from 0 to `max` (at least the largest value). */
export function sparkline(values: (number | null)[], label: string, kind: "cpu" | "mem", max = 0): SVGSVGElement {
  const w = 80
  const hgt = 20
  const svg = document.createElementNS(SVG, "svg")
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`)
  svg.setAttribute("class", `spark spark-${kind}`)
  svg.setAttribute("role", "img")
  svg.setAttribute("aria-label", label)
  const top = Math.max(max, ...values.map((v) => v ?? 0), 1e-9)
  const step = values.length > 1 ? w / (values.length - 1) : w
  let d = ""
  let pen = false
  values.forEach((v, i) => {
    if (v === null) return void (pen = false)
    d += `${pen ? "L" : "M"}${(i * step).toFixed(1)} ${(hgt - 1 - (v / top) * (hgt - 2)).toFixed(1)}`
    pen = true
  })
  const path = document.createElementNS(SVG, "path")
  path.setAttribute("d", d)
  svg.appendChild(path)
  return svg
}

const SPARK_POINTS = 60

/** The last hour of every container, 60 points each, kept live: what the list and the dashboard draw. */
export class StatsFeed {
  readonly cpu = new Map<string, (number | null)[]>()
  readonly mem = new Map<string, (number | null)[]>()
  latest = new Map<string, any>()
  host: { cpus: number | null; memory_bytes: number | null } = { cpus: null, memory_bytes: null }
  private lastTime = 0

  /** Loads the history, then follows the stream; `changed` runs after each. An API without stats (an older node) leaves it empty. */
  start(signal: AbortSignal, changed: () => void): void {
    get(`/stats?history=true&points=${SPARK_POINTS}`, { signal })
      .then((r) => {
        this.host = r.host ?? this.host
        for (const c of r.containers ?? []) {
          this.cpu.set(c.id, c.history?.cpu_percent ?? [])
          this.mem.set(c.id, c.history?.memory_bytes ?? [])
        }
        this.take(r, false)
        changed()
      })
      .catch(() => {})
      .finally(
        () =>
          void follow(
            "/stats/stream",
            (r) => (this.take(r, true), changed()),
            () => {},
            signal,
          ),
      )
  }

  private take(r: any, append: boolean): void {
    const t = Date.parse(r.time ?? "")
    if (append && !(t > this.lastTime)) return
    if (t) this.lastTime = t
    this.host = r.host ?? this.host
    this.latest = new Map((r.containers ?? []).map((c: any) => [c.id, c]))
    if (!append) return
    for (const c of r.containers ?? []) {
      for (const [map, v] of [
        [this.cpu, c.cpu_percent],
        [this.mem, c.memory_bytes],
      ] as const) {
        const list = map.get(c.id) ?? []
        list.push(v)
        if (list.length > SPARK_POINTS) list.splice(0, list.length - SPARK_POINTS)
        map.set(c.id, list)
      }
    }
  }

  /** CPU and memory of one container: sparklines and the latest figures. */
  cells(id: string, name: string): { cpu: HTMLElement; mem: HTMLElement } {
    const c = this.latest.get(id)
    return {
      cpu: h(
        "span",
        { class: "spark-cell" },
        sparkline(this.cpu.get(id) ?? [], `CPU of ${name}, last hour`, "cpu", 100),
        h("span", { class: "spark-value" }, percent(c?.cpu_percent)),
      ),
      mem: h(
        "span",
        { class: "spark-cell" },
        sparkline(this.mem.get(id) ?? [], `Memory of ${name}, last hour`, "mem"),
        h("span", { class: "spark-value" }, c ? bytes(c.memory_bytes) : "—"),
      ),
    }
  }
}

/** Fills the cells marked data-spark="cpu|mem" data-id=… under `root` from the feed. */
export function paintSparks(root: Element, feed: StatsFeed): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-spark]")) {
    const cells = feed.cells(el.dataset.id!, el.dataset.name ?? "")
    render(el, el.dataset.spark === "cpu" ? cells.cpu : cells.mem)
  }
}

function facts(host: any, items: [string, string][]): HTMLElement {
  return h(
    "dl",
    { class: "facts stats-facts" },
    items.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
    host?.cpus ? [h("dt", null, "Host"), h("dd", null, `${host.cpus} CPUs, ${bytes(host.memory_bytes)}`)] : null,
  )
}

const containerFacts = (c: any, host: any) =>
  facts(host, [
    [
      "CPU",
      c
        ? `${percent(c.cpu_percent)}${c.cpu_limit_cores ? ` (${percent(c.cpu_limit_percent)} of its ${c.cpu_limit_cores} CPU limit)` : ""}`
        : "not running",
    ],
    ["Memory", c ? `${bytes(c.memory_bytes)} of ${bytes(c.memory_limit_bytes)} (${percent(c.memory_percent)})` : "—"],
    [
      "Network",
      c ? `↓ ${bytes(c.net_rx_bytes_per_s ?? undefined)}/s ↑ ${bytes(c.net_tx_bytes_per_s ?? undefined)}/s` : "—",
    ],
    [
      "Block I/O",
      c
        ? `read ${bytes(c.block_read_bytes_per_s ?? undefined)}/s, write ${bytes(c.block_write_bytes_per_s ?? undefined)}/s`
        : "—",
    ],
    ["Processes", c ? String(c.pids) : "—"],
  ])

/** Loads history, draws the charts, then follows `stream`, handing each message to `onMessage` (which returns the point to add, if any). */
async function chartPane(
  pane: HTMLElement,
  head: HTMLElement,
  points: Point[],
  stream: string,
  signal: AbortSignal,
  onMessage: (m: any) => Point | null,
) {
  const { resourceCharts } = await import("./charts.ts")
  if (signal.aborted) return
  const charts = resourceCharts(points)
  render(
    pane,
    head,
    charts.el,
    h("p", { class: "muted small" }, "The last hour, live; CPU: 100 % is one core fully used."),
  )
  void follow(
    stream,
    (m) => {
      const p = onMessage(m)
      if (p) charts.push(p)
    },
    (err) => render(head, errorBox(err)),
    signal,
  )
}

export function containerResources(pane: HTMLElement, id: string, signal: AbortSignal): void {
  render(pane, h("p", { class: "loading" }, "Loading…"))
  get(`/containers/${enc(id)}/stats?history=true`, { signal })
    .then((r) => {
      const head = h("div", null, containerFacts(r.latest, r.host))
      return chartPane(pane, head, historyPoints(r.history), `/containers/${enc(r.id)}/stats/stream`, signal, (m) => {
        if (m.running === false) {
          render(head, containerFacts(null, r.host))
          return null
        }
        render(head, containerFacts(m, r.host))
        return m.cpu_percent === undefined ? null : samplePoint(m)
      })
    })
    .catch((err) => signal.aborted || render(pane, errorBox(err)))
}

const stackTable = (containers: any[]) =>
  table(
    containers,
    [
      { title: "Container", cell: (c) => h("a", { href: `#/containers/${enc(c.id)}/stats` }, c.name) },
      { title: "CPU", cell: (c) => percent(c.cpu_percent) },
      { title: "Memory", cell: (c) => bytes(c.memory_bytes) },
      {
        title: "Network",
        cell: (c) => `↓ ${bytes(c.net_rx_bytes_per_s ?? undefined)}/s ↑ ${bytes(c.net_tx_bytes_per_s ?? undefined)}/s`,
      },
      { title: "Processes", cell: (c) => c.pids },
    ],
    "No container of this stack is running.",
    "Containers of the stack",
  )

export function stackResources(pane: HTMLElement, name: string, signal: AbortSignal): void {
  render(pane, h("p", { class: "loading" }, "Loading…"))
  const view = (r: any) => [
    facts(r.host, [
      ["CPU (sum)", percent(r.sum?.cpu_percent)],
      ["Memory (sum)", bytes(r.sum?.memory_bytes)],
      ["Running", String(r.sum?.containers ?? 0)],
    ]),
    stackTable(r.containers ?? []),
  ]
  get(`/stacks/${enc(name)}/stats?history=true`, { signal })
    .then((r) => {
      const head = h("div", null, view(r))
      return chartPane(pane, head, historyPoints(r.history), `/stacks/${enc(name)}/stats/stream`, signal, (m) => {
        render(head, view(m))
        return m.time ? { ...samplePoint(m.sum), t: Date.parse(m.time) } : null
      })
    })
    .catch((err) => signal.aborted || render(pane, errorBox(err)))
}
