// Dashboard: the system summary, containers by state, the top consumers of CPU and memory (live
// sparklines), and the live feed of engine events.
import { enc, follow, get, reloadOnChange } from "../api.ts"
import { badge, bytes, errorBox, h, load, render, table } from "../dom.ts"
import { container, countBy, type DashboardAnswer, type EngineEvent } from "../model.ts"
import { StatsFeed } from "../stats.ts"

const TOP = 5

/** The containers using the most CPU (then memory) now, with their last hour as sparklines. */
function topConsumers(feed: StatsFeed): HTMLElement {
  const top = [...feed.latest.values()].sort((a, b) => (b.cpu_percent ?? 0) - (a.cpu_percent ?? 0) || b.memory_bytes - a.memory_bytes).slice(0, TOP)
  return table(
    top,
    [
      { title: "Container", cell: (c) => h("a", { href: `#/containers/${enc(c.id)}/stats` }, c.name) },
      { title: "CPU", cell: (c) => feed.cells(c.id, c.name).cpu },
      { title: "Memory", cell: (c) => feed.cells(c.id, c.name).mem },
    ],
    "No running container.",
    "Top consumers",
  )
}

const FEED_LIMIT = 200

/** The system facts of the summary: engine, counts and disk use. */
function facts(d: DashboardAnswer): [string, string][] {
  const { engine: e, disk } = d
  return [
    ["Engine", `Docker ${e.version} (API ${e.api_version})`],
    ["System", [e.os, e.arch, e.kernel].filter(Boolean).join(" · ") || "—"],
    ["Images", `${d.images.count} (${bytes(d.images.size)})`],
    ["Volumes", String(d.volumes.count)],
    ["Networks", String(d.networks.count)],
    ["Disk use", `${bytes(disk.total)}: images ${bytes(disk.images)}, containers ${bytes(disk.containers)}, volumes ${bytes(disk.volumes)}, build cache ${bytes(disk.build_cache)}`],
  ]
}

function eventRow(e: EngineEvent): HTMLElement {
  const time = new Date(e.time).toLocaleTimeString()
  const name = e.name ?? e.attributes?.name ?? e.id?.slice(0, 12) ?? ""
  return h(
    "li",
    { class: `event ${e.level === "error" ? "event-error" : ""}` },
    h("time", null, time),
    h("span", { class: "event-kind" }, `${e.type} ${e.action}`),
    h("span", { class: "event-name" }, name),
    e.message && h("span", { class: "event-message" }, e.message),
  )
}

export function dashboardPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const summary = h("section", { "aria-labelledby": "sum-h" })
  const feed = h("ol", { class: "events", "aria-live": "polite", "aria-label": "Engine events", tabIndex: 0 })
  const feedState = h("div")
  const consumers = h("div", { class: "top-consumers" })
  const host = h("span", { class: "muted" })
  render(
    main,
    h("h1", null, "Dashboard"),
    summary,
    h("section", { class: "card", "aria-labelledby": "top-h" }, h("h2", { id: "top-h" }, "Top consumers ", host), consumers),
    h("section", { class: "card" }, h("h2", null, "Live events"), feedState, feed),
  )
  const stats = new StatsFeed()
  stats.start(signal, () => {
    render(consumers, topConsumers(stats))
    render(host, stats.host.cpus ? `(host: ${stats.host.cpus} CPUs, ${bytes(stats.host.memory_bytes ?? undefined)})` : "")
  })

  const reload = load(
    summary,
    () => get<DashboardAnswer>("/dashboard", { signal }),
    (data) => {
      const containers = data.containers.map(container)
      const byState = countBy(containers, (c) => c.state)
      return [
        h("h2", { id: "sum-h", class: "sr-only" }, "Summary"),
        h(
          "div",
          { class: "cards" },
          h("div", { class: "card stat" }, h("span", { class: "stat-n" }, containers.length), h("span", null, "containers")),
          Object.entries(byState).map(([state, n]) => h("a", { class: "card stat", href: "#/containers" }, h("span", { class: "stat-n" }, n), badge(state))),
        ),
        h("div", { class: "card" }, h("h2", null, "System"), h("dl", { class: "facts" }, facts(data).map(([k, v]) => [h("dt", null, k), h("dd", null, v)]))),
      ]
    },
  )

  const seen = new Set<number>()
  const add = (e: EngineEvent) => {
    if (seen.has(e.seq)) return
    seen.add(e.seq)
    feed.prepend(eventRow(e))
    while (feed.childElementCount > FEED_LIMIT) feed.lastElementChild!.remove()
  }
  get<EngineEvent[]>("/events/history", { signal })
    .then((history) => history.forEach(add))
    .catch((err) => render(feedState, errorBox(err)))
  void follow("/events", add, (err) => render(feedState, errorBox(err)), signal)
  reloadOnChange(reload, signal)
}
