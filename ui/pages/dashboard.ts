// Dashboard: is everything fine? One call (GET /api/dashboard) answers it: the stacks by health,
// updates, critical and high CVEs, nodes, swarm services below their replicas and overdue backups as
// tiles, each thing that needs attention as a card linking to where it is fixed, the host's CPU,
// memory and disk over the last hour; then the top consumers (live sparklines), the system summary
// and the live feed of engine events.
import type { Overview } from "#lib/overview/schemas.ts"
import { enc, follow, get, reloadOnChange } from "../api.ts"
import { bytes, errorBox, h, load, render, table, when } from "../dom.ts"
import type { EngineEvent } from "../model.ts"
import { percent, sparkline, StatsFeed } from "../stats.ts"

type Health = Overview["health"]

const TOP = 5
const FEED_LIMIT = 200
/** The host's hour moves on even when no container changes. */
const REFRESH_MS = 30_000

/** The containers using the most CPU (then memory) now, with their last hour as sparklines. */
function topConsumers(feed: StatsFeed): HTMLElement {
  const top = [...feed.latest.values()]
    .sort((a, b) => (b.cpu_percent ?? 0) - (a.cpu_percent ?? 0) || b.memory_bytes - a.memory_bytes)
    .slice(0, TOP)
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

/** The system facts of the summary: engine, counts and disk use. */
function facts(d: Overview): [string, string][] {
  const { engine: e, disk } = d
  return [
    ["Engine", `Docker ${e.version} (API ${e.api_version})`],
    ["System", [e.os, e.arch, e.kernel].filter(Boolean).join(" · ") || "—"],
    [
      "Swarm",
      d.swarm?.active
        ? `${d.swarm.role ?? "node"}${d.swarm.nodes ? ` of ${d.swarm.nodes} nodes` : ""}`
        : "not in a swarm",
    ],
    ["Images", `${d.images.count} (${bytes(d.images.size)})`],
    ["Volumes", String(d.volumes.count)],
    ["Networks", String(d.networks.count)],
    [
      "Disk use",
      `${bytes(disk.total)}: images ${bytes(disk.images)}, containers ${bytes(disk.containers)}, volumes ${bytes(disk.volumes)}, build cache ${bytes(disk.build_cache)}`,
    ],
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const listed = (names: string[]) =>
  names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more` : names.join(", ")

/** A count that links to the list showing it; `bad` when it needs attention. */
function tile(
  n: number | string,
  label: string,
  href: string,
  tone: "bad" | "warn" | "ok" | "plain",
  extra?: HTMLElement | false,
): HTMLElement {
  return h(
    "a",
    { class: `card stat tile tile-${tone}`, href },
    h("span", { class: "stat-n" }, n),
    h("span", { class: "tile-label" }, label),
    extra,
  )
}

function tiles(health: Health): HTMLElement {
  const { counts } = health.stacks
  const stackParts = h(
    "span",
    { class: "tile-parts" },
    (["running", "degraded", "stopped"] as const).map(
      (k) => counts[k] > 0 && h("span", { class: `badge state-${k}` }, `${counts[k]} ${k}`),
    ),
    counts.failed_update > 0 &&
      h("span", { class: "badge state-failed" }, plural(counts.failed_update, "failed update")),
  )
  const troubled = counts.failed_update || counts.degraded
  const criticalImages = health.cves.filter((c) => c.critical > 0).length
  const offline = health.nodes.total - health.nodes.online
  return h(
    "div",
    { class: "cards tiles" },
    tile(
      health.stacks.items.length,
      "stacks",
      troubled ? "#/stacks?health=degraded" : "#/stacks",
      troubled ? "bad" : "ok",
      stackParts,
    ),
    tile(
      health.updates.length,
      health.updates.length === 1 ? "update available" : "updates available",
      "#/images?update=available",
      health.updates.length ? "warn" : "ok",
    ),
    tile(
      health.cves.length,
      `${health.cves.length === 1 ? "image" : "images"} with critical or high CVEs${criticalImages ? ` (${criticalImages} critical)` : ""}`,
      "#/images?scan=high",
      health.cves.length ? "bad" : "ok",
    ),
    health.nodes.total > 0 &&
      tile(`${health.nodes.online}/${health.nodes.total}`, "nodes online", "#/cluster", offline ? "bad" : "ok"),
    health.swarm.manager &&
      tile(
        health.swarm.below.length,
        `of ${plural(health.swarm.services, "swarm service")} below their replicas`,
        "#/swarm",
        health.swarm.below.length ? "bad" : "ok",
      ),
    tile(
      health.backups.overdue.length,
      health.backups.overdue.length === 1 ? "backup overdue" : "backups overdue",
      "#/backups",
      health.backups.overdue.length ? "bad" : "ok",
    ),
  )
}

interface Issue {
  tone: "bad" | "warn"
  title: string
  detail: string | null
  href: string | null
}

/** What needs attention, most pressing first, each with where it is fixed. */
function issues(health: Health): Issue[] {
  const out: Issue[] = []
  for (const s of health.stacks.items) {
    if (s.failed_update)
      out.push({
        tone: "bad",
        title: `${s.name}: its last update ${s.failed_update.verdict === "rolled_back" ? "failed and was rolled back" : "failed and could not be rolled back"}`,
        detail: s.failed_update.reason,
        href: `#/stacks/${enc(s.name)}/updates`,
      })
    if (s.health === "degraded")
      out.push({ tone: "bad", title: `${s.name} is degraded`, detail: s.reason, href: `#/stacks/${enc(s.name)}` })
  }
  for (const n of health.nodes.items)
    if (n.status !== "online")
      out.push({ tone: "bad", title: `Node ${n.name} is ${n.status}`, detail: n.error, href: "#/cluster" })
  for (const s of health.swarm.below)
    out.push({
      tone: "bad",
      title: `${s.name}: ${s.running} of ${plural(s.desired, "replica")} running`,
      detail: s.stack && `stack ${s.stack}`,
      href: `#/swarm/services/${enc(s.id)}`,
    })
  for (const b of health.backups.overdue)
    out.push({
      tone: "bad",
      title: `Backup of ${b.stack} to ${b.repository} is overdue`,
      detail: `due ${when(b.due)}${b.last_success ? `; last success ${when(b.last_success)}` : ""}${b.failures ? `; ${plural(b.failures, "failure")}` : ""}`,
      href: "#/backups",
    })
  for (const c of health.cves)
    out.push({
      tone: c.critical ? "bad" : "warn",
      title: `${c.ref}: ${[c.critical && `${c.critical} critical`, c.high && `${c.high} high`].filter(Boolean).join(", ")} ${c.critical + c.high === 1 ? "vulnerability" : "vulnerabilities"}`,
      detail: c.stacks.length ? `used by ${listed(c.stacks)}` : "used by no stack",
      href: `#/images?q=${enc(c.ref)}`,
    })
  for (const u of health.updates)
    out.push({
      tone: "warn",
      title: `${u.ref}: an update is available`,
      detail: u.stacks.length ? `used by ${listed(u.stacks)}` : `checked ${when(u.checked_at)}`,
      href: u.stacks.length === 1 ? `#/stacks/${enc(u.stacks[0]!)}/updates` : `#/images?q=${enc(u.ref)}`,
    })
  for (const e of health.errors)
    out.push({ tone: "bad", title: `Could not read ${e.part}`, detail: e.message, href: null })
  return out
}

function issueCard(i: Issue): HTMLElement {
  const body = [
    h("span", { class: "issue-title" }, i.title),
    i.detail && h("span", { class: "issue-detail" }, i.detail),
  ]
  return h(
    "li",
    null,
    i.href
      ? h("a", { class: `card issue issue-${i.tone}`, href: i.href }, body)
      : h("div", { class: `card issue issue-${i.tone}` }, body),
  )
}

/** A line of the host's hour, stretched to its box, and the figure now. */
function hostCell(
  title: string,
  now: string,
  of: string | null,
  values: (number | null)[],
  kind: "cpu" | "mem" | "disk",
  max: number,
): HTMLElement {
  const line = sparkline(values, `${title}, last hour`, kind === "cpu" ? "cpu" : "mem", max)
  line.setAttribute("preserveAspectRatio", "none")
  if (kind === "disk") line.classList.replace("spark-mem", "spark-disk")
  return h(
    "div",
    { class: "host-cell" },
    h("span", { class: "host-title" }, title),
    h("span", { class: "host-now" }, now, of && h("small", { class: "muted" }, ` ${of}`)),
    line,
  )
}

function hostView(host: Health["host"]): HTMLElement {
  const hist = host.history
  const empty = !hist.time.length
  return h(
    "section",
    { class: "card host", "aria-labelledby": "host-h" },
    h(
      "h2",
      { id: "host-h" },
      "Host, last hour ",
      h("small", { class: "muted" }, host.cpus ? `${host.cpus} CPUs, ${bytes(host.memory_bytes ?? undefined)}` : ""),
    ),
    h(
      "div",
      { class: "host-cells" },
      hostCell(
        "CPU used by containers",
        percent(host.cpu_percent),
        host.cpus ? "of all cores" : null,
        hist.cpu_percent,
        "cpu",
        100,
      ),
      hostCell(
        "Memory used by containers",
        bytes(host.used_memory_bytes ?? undefined),
        host.memory_bytes ? `of ${bytes(host.memory_bytes)}` : null,
        hist.memory_bytes,
        "mem",
        host.memory_bytes ?? 0,
      ),
      hostCell(
        "Disk (data directory)",
        host.disk ? bytes(host.disk.used_bytes) : "—",
        host.disk ? `of ${bytes(host.disk.total_bytes)}` : null,
        hist.disk_used_bytes,
        "disk",
        host.disk?.total_bytes ?? 0,
      ),
    ),
    empty &&
      h(
        "p",
        { class: "muted small" },
        "No history yet: the stats sampler keeps the last hour while SVC_STATS_HISTORY is on.",
      ),
  )
}

function statusLine(health: Health, list: Issue[]): HTMLElement {
  const pressing = list.filter((i) => i.tone === "bad").length
  if (health.ok && !list.length) return h("p", { class: "health-status health-ok" }, "Everything is fine.")
  if (!pressing)
    return h(
      "p",
      { class: "health-status health-warn" },
      `Nothing is failing; ${plural(list.length, "thing")} to look at.`,
    )
  return h("p", { class: "health-status health-bad" }, `${plural(pressing, "thing needs", "things need")} attention.`)
}

function system(d: Overview): HTMLElement {
  const states = Object.entries(d.container_states).filter(([k, n]) => k !== "total" && n > 0)
  return h(
    "section",
    { class: "card", "aria-labelledby": "sys-h" },
    h("h2", { id: "sys-h" }, "System"),
    h(
      "p",
      { class: "states" },
      h("a", { href: "#/containers" }, plural(d.container_states.total, "container")),
      ": ",
      states.map(([k, n]) =>
        h("a", { class: `badge state-link state-${k}`, href: `#/containers?state=${enc(k)}` }, `${n} ${k}`),
      ),
    ),
    h(
      "dl",
      { class: "facts" },
      facts(d).map(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
    ),
  )
}

function view(d: Overview): HTMLElement[] {
  // A node of an older release, reached through the gateway, answers the summary without its health.
  if (!d.health)
    return [
      h("p", { class: "health-status" }, "This server does not say whether everything is fine (an older release)."),
      system(d),
    ]
  const list = issues(d.health)
  return [
    statusLine(d.health, list),
    tiles(d.health),
    h(
      "section",
      { "aria-labelledby": "attn-h", class: "attention" },
      h("h2", { id: "attn-h" }, "Needs attention"),
      list.length
        ? h("ul", { class: "issues" }, list.map(issueCard))
        : h("p", { class: "empty" }, "Nothing needs attention."),
    ),
    hostView(d.health.host),
    system(d),
  ]
}

export function dashboardPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const summary = h("div", { class: "overview" })
  const feed = h("ol", { class: "events", "aria-live": "polite", "aria-label": "Engine events", tabIndex: 0 })
  const feedState = h("div")
  const consumers = h("div", { class: "top-consumers" })
  const host = h("span", { class: "muted" })
  render(
    main,
    h("h1", null, "Dashboard"),
    summary,
    h(
      "section",
      { class: "card", "aria-labelledby": "top-h" },
      h("h2", { id: "top-h" }, "Top consumers ", host),
      consumers,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "events-h" },
      h("h2", { id: "events-h" }, "Live events"),
      feedState,
      feed,
    ),
  )
  const stats = new StatsFeed()
  stats.start(signal, () => {
    render(consumers, topConsumers(stats))
    render(
      host,
      stats.host.cpus ? `(host: ${stats.host.cpus} CPUs, ${bytes(stats.host.memory_bytes ?? undefined)})` : "",
    )
  })

  const reload = load(summary, () => get<Overview>("/dashboard", { signal }), view)
  const timer = setInterval(() => void reload(), REFRESH_MS)
  signal.addEventListener("abort", () => clearInterval(timer))

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
