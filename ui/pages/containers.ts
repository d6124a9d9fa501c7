// Containers: the list with state, image, ports, stack and CPU/memory sparklines; actions; delete
// with confirmation; one container's live logs, its shell and its resource charts.
import { del, enc, get, post, reloadOnChange } from "../api.ts"
import { action, badge, errorBox, h, load, render, table, toast } from "../dom.ts"
import { logView } from "../logs.ts"
import { container, shortId, type Container, type ContainerDetail, type DashboardAnswer } from "../model.ts"
import { containerResources, paintSparks, StatsFeed } from "../stats.ts"
import { adoptContainersDialog } from "./adopt.ts"

const ACTIONS: Record<string, string[]> = {
  running: ["stop", "restart", "pause"],
  paused: ["unpause", "stop"],
  restarting: ["stop"],
}

/** The action buttons that fit a container's state, and delete. */
export function containerActions(c: Container, refresh: () => void): HTMLElement {
  const actions = ACTIONS[c.state] ?? ["start"]
  return h(
    "div",
    { class: "actions" },
    actions.map((a) => {
      const label = a[0]!.toUpperCase() + a.slice(1)
      return action(label, () => post(`/containers/${enc(c.id)}/action`, { action: a }), { done: refresh, label: `${label} ${c.name}` })
    }),
    !c.stack && h("button", { type: "button", class: "small", "aria-label": `Adopt ${c.name}`, "data-needs": "operator", onclick: () => void adoptContainersDialog([c.id], c.name) }, "Adopt…"),
    action("Delete", () => del(`/containers/${enc(c.id)}?force=true`), {
      class: "small danger",
      label: `Delete ${c.name}`,
      confirm: `Delete container ${c.name}? It is removed even if it is running.`,
      done: () => {
        toast(`Deleted ${c.name}`)
        refresh()
      },
    }),
  )
}

/** A cell a StatsFeed fills with a sparkline (see paintSparks). */
const sparkCell = (kind: "cpu" | "mem", c: Container) => (c.state === "running" || c.state === "paused" ? h("span", { "data-spark": kind, "data-id": c.id, "data-name": c.name }) : "—")

export function containerTable(list: Container[], refresh: () => void, sparks = false): HTMLElement {
  return table(
    list,
    [
      { title: "Name", cell: (c) => h("a", { href: `#/containers/${enc(c.id)}` }, c.name || shortId(c.id)) },
      { title: "State", cell: (c) => [badge(c.state), h("small", { class: "muted" }, " ", c.status)] },
      ...(sparks ? [{ title: "CPU", cell: (c: Container) => sparkCell("cpu", c) }, { title: "Memory", cell: (c: Container) => sparkCell("mem", c) }] : []),
      { title: "Image", cell: (c) => h("span", { class: "mono" }, c.image) },
      { title: "Ports", cell: (c) => c.ports.join(", ") || "—" },
      { title: "Stack", cell: (c) => (c.stack ? h("a", { href: `#/stacks/${enc(c.stack)}` }, c.stack) : "—") },
      { title: "Actions", cell: (c) => containerActions(c, refresh) },
    ],
    "No containers on this server.",
    "Containers",
  )
}

export function containersPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  const filter = h("input", { type: "search", placeholder: "Filter by name, image or stack", "aria-label": "Filter containers" })
  let all: Container[] = []
  const feed = new StatsFeed()
  const show = () => {
    const q = filter.value.toLowerCase()
    render(body, containerTable(q ? all.filter((c) => `${c.name} ${c.image} ${c.stack} ${c.state}`.toLowerCase().includes(q)) : all, () => void reload(), true))
    paintSparks(body, feed)
  }
  filter.addEventListener("input", show)
  render(main, h("div", { class: "page-head" }, h("h1", null, "Containers"), filter, h("button", { type: "button", onclick: () => void reload() }, "Refresh")), body)
  const reload = load(
    body,
    () => get<DashboardAnswer>("/dashboard", { signal }),
    (data) => {
      all = data.containers.map(container)
      const q = filter.value.toLowerCase()
      const view = containerTable(q ? all.filter((c) => `${c.name} ${c.image} ${c.stack}`.toLowerCase().includes(q)) : all, () => void reload(), true)
      paintSparks(view, feed)
      return view
    },
  )
  reloadOnChange(reload, signal)
  feed.start(signal, () => paintSparks(body, feed))
}

const TAB_NAMES: Record<string, string> = { logs: "Logs", shell: "Terminal", stats: "Resources" }

export function containerPage(main: HTMLElement, params: Record<string, string>, signal: AbortSignal): void {
  const id = params.id!
  const tab = params.tab || "logs"
  const head = h("div")
  const pane = h("div", { class: "pane" })
  render(
    main,
    h("p", null, h("a", { href: "#/containers" }, "← Containers")),
    head,
    h(
      "div",
      { class: "tabs", role: "navigation", "aria-label": "Container views" },
      ["logs", "shell", "stats"].map((t) => h("a", { href: `#/containers/${enc(id)}/${t}`, "aria-current": t === tab ? "page" : false, "data-needs": t === "shell" && "operator" }, TAB_NAMES[t])),
    ),
    pane,
  )
  const reload = load(
    head,
    async () => container(await get<ContainerDetail>(`/containers/${enc(id)}`, { signal })),
    (c) => h("div", { class: "page-head" }, h("h1", null, c.name), badge(c.state), h("span", { class: "mono muted" }, c.image), c.stack && h("a", { href: `#/stacks/${enc(c.stack)}` }, `stack ${c.stack}`), containerActions(c, () => void reload())),
  )
  if (tab === "stats") return containerResources(pane, id, signal)
  if (tab !== "shell") return render(pane, logView(`/containers/${enc(id)}/logs?follow=true`, signal))
  // xterm.js is most of the page weight: loaded only when a terminal is opened.
  render(pane, h("p", { class: "loading" }, "Loading the terminal…"))
  import("../terminal.ts").then(({ terminal }) => signal.aborted || render(pane, terminal(id, signal)), (err) => render(pane, errorBox(err)))
}
