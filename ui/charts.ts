// The full resource charts (CPU, memory, network, block I/O over the last hour, live) drawn with
// uPlot: a ~50 kB canvas library made for time series, chosen over Chart.js (~200 kB) and ECharts
// (~1 MB) for its size and its speed with thousands of points. Loaded only when a chart is shown.
import uPlot from "uplot"
import { bytes, h } from "./dom.ts"

const HOUR_S = 3600

/** One sample of a container or a stack (ui/stats.ts reads them from the API). */
export interface Point {
  /** ms since the epoch */
  t: number
  cpu: number | null
  mem: number | null
  rx: number | null
  tx: number | null
  blkRead: number | null
  blkWrite: number | null
}

type Unit = "percent" | "bytes" | "rate" | "count"

interface ChartSpec {
  title: string
  unit: Unit
  series: { label: string; key: keyof Point; color: string }[]
}

const SPECS: ChartSpec[] = [
  { title: "CPU", unit: "percent", series: [{ label: "CPU (100 % = one core)", key: "cpu", color: "--accent" }] },
  { title: "Memory", unit: "bytes", series: [{ label: "Memory used", key: "mem", color: "--ok" }] },
  {
    title: "Network",
    unit: "rate",
    series: [
      { label: "Received", key: "rx", color: "--accent" },
      { label: "Sent", key: "tx", color: "--warn" },
    ],
  },
  {
    title: "Block I/O",
    unit: "rate",
    series: [
      { label: "Read", key: "blkRead", color: "--ok" },
      { label: "Written", key: "blkWrite", color: "--danger" },
    ],
  },
]

export function format(unit: Unit, v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "—"
  if (unit === "percent") return `${v < 10 ? v.toFixed(1) : v.toFixed(0)} %`
  if (unit === "bytes") return bytes(v)
  if (unit === "rate") return `${bytes(v)}/s`
  return String(Math.round(v))
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888"

const two = (n: number) => String(n).padStart(2, "0")

/** A time axis label on one line: hours and minutes, and seconds when ticks are less than a minute apart. */
function clock(seconds: number, step: number): string {
  const d = new Date(seconds * 1000)
  return `${two(d.getHours())}:${two(d.getMinutes())}${step < 60 ? `:${two(d.getSeconds())}` : ""}`
}

export interface Charts {
  el: HTMLElement
  /** Adds the newest point to every chart, dropping what is older than an hour. */
  push(p: Point): void
}

/** Four charts over `points` (oldest first); they follow the width of their box, a phone's included. */
export function resourceCharts(points: Point[]): Charts {
  const el = h("div", { class: "charts" })
  const data: Point[] = [...points]
  const plots: { plot: uPlot; spec: ChartSpec; box: HTMLElement }[] = []
  const columns = (spec: ChartSpec): uPlot.AlignedData => [
    data.map((p) => p.t / 1000),
    ...spec.series.map((s) => data.map((p) => (p[s.key] as number | null) ?? null)),
  ]

  for (const spec of SPECS) {
    // The plot's own block: its width is the figure's inside, padding excluded.
    const box = h("div", { class: "chart-plot" })
    el.append(
      h(
        "figure",
        { class: "chart", "data-chart": spec.title.toLowerCase().replace(/\W+/g, "-") },
        h("figcaption", null, spec.title),
        box,
      ),
    )
    const axis = {
      stroke: cssVar("--muted"),
      grid: { stroke: cssVar("--line"), width: 1 },
      ticks: { stroke: cssVar("--line"), width: 1 },
    }
    const opts: uPlot.Options = {
      width: 320,
      height: 160,
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      scales: {
        x: { time: true },
        y: {
          range: (_u, _min, max) => [0, spec.unit === "percent" ? Math.max(100, max * 1.1) : Math.max(max * 1.1, 1000)],
        },
      },
      axes: [
        { ...axis, space: 80, size: 32, values: (_u, ticks, _axis, _space, step) => ticks.map((t) => clock(t, step)) },
        { ...axis, size: 70, values: (_u, ticks) => ticks.map((v) => format(spec.unit, v)) },
      ],
      series: [
        { value: (_u, v) => (v === null ? "—" : new Date(v * 1000).toLocaleTimeString()) },
        ...spec.series.map((s) => ({
          label: s.label,
          stroke: cssVar(s.color),
          width: 1.5,
          fill: cssVar(s.color) + "22",
          spanGaps: false,
          value: (_u: uPlot, v: number | null) => format(spec.unit, v),
        })),
      ],
    }
    plots.push({ plot: new uPlot(opts, columns(spec), box), spec, box })
  }

  const fit = () => {
    for (const { plot, box } of plots) {
      const width = Math.max(200, box.clientWidth)
      if (width !== plot.width) plot.setSize({ width, height: 160 })
    }
  }
  new ResizeObserver(fit).observe(el)
  el.dataset.points = String(data.length)

  return {
    el,
    push(p) {
      if (data.length && data.at(-1)!.t >= p.t) return
      data.push(p)
      const cutoff = p.t - HOUR_S * 1000
      while (data.length && data[0]!.t < cutoff) data.shift()
      for (const { plot, spec } of plots) plot.setData(columns(spec))
      el.dataset.points = String(data.length)
    },
  }
}
