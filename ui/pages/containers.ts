// Containers: the list with state, image, ports, stack and CPU/memory sparklines; actions; delete
// with confirmation; one container's live logs, its shell and its resource charts.
import { del, enc, get, post, reloadOnChange } from "../api.ts"
import { containerChanges, fileBrowser } from "./files.ts"
import { action, badge, errorBox, h, load, render, table, toast } from "../dom.ts"
import { logView } from "../logs.ts"
import { container, shortId, type Container, type ContainerDetail, type DashboardAnswer } from "../model.ts"
import { containerResources, paintSparks, StatsFeed } from "../stats.ts"
import { adoptContainersDialog } from "./adopt.ts"
import { listView, type BulkAction, type ListColumn } from "../list-view.ts"
import { distinct, type ListSpec } from "../lists.ts"

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
      return action(label, () => post(`/containers/${enc(c.id)}/action`, { action: a }), {
        done: refresh,
        label: `${label} ${c.name}`,
      })
    }),
    !c.stack &&
      h(
        "button",
        {
          type: "button",
          class: "small",
          "aria-label": `Adopt ${c.name}`,
          "data-needs": "operator",
          onclick: () => void adoptContainersDialog([c.id], c.name),
        },
        "Adopt…",
      ),
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
const sparkCell = (kind: "cpu" | "mem", c: Container) =>
  c.state === "running" || c.state === "paused"
    ? h("span", { "data-spark": kind, "data-id": c.id, "data-name": c.name })
    : "—"

export function containerTable(list: Container[], refresh: () => void): HTMLElement {
  return table(list, containerColumns(refresh), "No containers on this server.", "Containers")
}

const containerColumns = (refresh: () => void, sparks = false): ListColumn<Container>[] => [
  { title: "Name", sort: "name", cell: (c) => h("a", { href: `#/containers/${enc(c.id)}` }, c.name || shortId(c.id)) },
  { title: "State", sort: "state", cell: (c) => [badge(c.state), h("small", { class: "muted" }, " ", c.status)] },
  ...(sparks
    ? [
        { title: "CPU", sort: "cpu", cell: (c: Container) => sparkCell("cpu", c) },
        { title: "Memory", sort: "memory", cell: (c: Container) => sparkCell("mem", c) },
      ]
    : []),
  { title: "Image", sort: "image", cell: (c) => h("span", { class: "mono" }, c.image) },
  { title: "Ports", cell: (c) => c.ports.join(", ") || "—" },
  {
    title: "Stack",
    sort: "stack",
    cell: (c) => (c.stack ? h("a", { href: `#/stacks/${enc(c.stack)}` }, c.stack) : "—"),
  },
  { title: "Actions", cell: (c) => containerActions(c, refresh) },
]

const RUNNING = new Set(["running", "paused", "restarting"])

function containerSpec(feed: StatsFeed): ListSpec<Container> {
  return {
    text: (c) => `${c.name} ${c.image} ${c.stack} ${c.state} ${c.ports.join(" ")}`,
    filters: {
      state: { label: "State", choices: (rows) => distinct(rows, (c) => c.state), test: (c, v) => c.state === v },
      stack: {
        label: "Stack",
        choices: (rows) => [["none", "In no stack"], ...distinct(rows, (c) => c.stack)],
        test: (c, v) => (v === "none" ? !c.stack : c.stack === v),
      },
    },
    sorts: {
      name: { label: "Name", value: (c) => c.name },
      state: { label: "State", value: (c) => c.state },
      cpu: { label: "CPU", value: (c) => feed.latest.get(c.id)?.cpu_percent ?? null, desc: true },
      memory: { label: "Memory", value: (c) => feed.latest.get(c.id)?.memory_bytes ?? null, desc: true },
      image: { label: "Image", value: (c) => c.image },
      stack: { label: "Stack", value: (c) => c.stack || null },
    },
  }
}

const containerBulk = (reload: () => void): BulkAction<Container>[] => [
  {
    label: "Start",
    done: "started",
    applies: (c) => !RUNNING.has(c.state),
    run: (c) => post(`/containers/${enc(c.id)}/action`, { action: "start" }),
  },
  {
    label: "Stop",
    done: "stopped",
    applies: (c) => RUNNING.has(c.state),
    run: (c) => post(`/containers/${enc(c.id)}/action`, { action: "stop" }),
  },
  {
    label: "Delete",
    done: "deleted",
    danger: true,
    warning: "Running ones are removed too.",
    applies: () => true,
    run: (c) => del(`/containers/${enc(c.id)}?force=true`),
  },
  {
    label: "Adopt…",
    done: "adopted",
    applies: (c) => !c.stack,
    open: (cs) =>
      void adoptContainersDialog(
        cs.map((c) => c.id),
        cs.length === 1 ? cs[0]!.name : `${cs.length} containers`,
      ).then(reload),
  },
]

/** The offer to adopt what runs outside any stack: a link to those containers alone. */
const adoptOffer = (list: Container[]) => {
  const plain = list.filter((c) => !c.stack).length
  return plain
    ? h(
        "p",
        { class: "offer" },
        `${plain} container${plain === 1 ? "" : "s"} belong${plain === 1 ? "s" : ""} to no stack. `,
        h("a", { href: "#/containers?stack=none" }, "Show them"),
        ", select them and choose Adopt… to manage them as a stack.",
      )
    : null
}

export function containersPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const feed = new StatsFeed()
  const status = h("div")
  const offer = h("div")
  const view = listView<Container>({
    noun: "containers",
    spec: containerSpec(feed),
    columns: containerColumns(() => void reload(), true),
    key: (c) => c.id,
    name: (c) => c.name || shortId(c.id),
    bulk: containerBulk(() => void reload()),
    empty: "No containers on this server.",
    drawn: (el) => paintSparks(el, feed),
    changed: () => void reload(),
  })
  render(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Containers"),
      h("button", { type: "button", onclick: () => void reload() }, "Refresh"),
    ),
    view.tools,
    offer,
    status,
    view.body,
  )
  const reload = load(
    status,
    () => get<DashboardAnswer>("/dashboard", { signal }),
    (data) => {
      const list = data.containers.map(container)
      render(offer, adoptOffer(list))
      view.show(list)
      return null
    },
  )
  reloadOnChange(reload, signal)
  feed.start(signal, () => paintSparks(view.body, feed))
}

const TAB_NAMES: Record<string, string> = {
  logs: "Logs",
  shell: "Terminal",
  stats: "Resources",
  files: "Files",
  changes: "Changes",
}

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
      ["logs", "shell", "stats", "files", "changes"].map((t) =>
        h(
          "a",
          {
            href: `#/containers/${enc(id)}/${t}`,
            "aria-current": t === tab ? "page" : false,
            "data-needs": t === "shell" && "operator",
          },
          TAB_NAMES[t],
        ),
      ),
    ),
    pane,
  )
  const reload = load(
    head,
    async () => container(await get<ContainerDetail>(`/containers/${enc(id)}`, { signal })),
    (c) =>
      h(
        "div",
        { class: "page-head" },
        h("h1", null, c.name),
        badge(c.state),
        h("span", { class: "mono muted" }, c.image),
        c.stack && h("a", { href: `#/stacks/${enc(c.stack)}` }, `stack ${c.stack}`),
        containerActions(c, () => void reload()),
      ),
  )
  if (tab === "stats") return containerResources(pane, id, signal)
  if (tab === "files")
    return render(pane, fileBrowser({ base: `/containers/${enc(id)}/files`, changes: false, title: id }, signal))
  if (tab === "changes") return containerChanges(pane, id, signal)
  if (tab !== "shell") return render(pane, logView(`/containers/${enc(id)}/logs?follow=true`, signal))
  // xterm.js is most of the page weight: loaded only when a terminal is opened.
  render(pane, h("p", { class: "loading" }, "Loading the terminal…"))
  import("../terminal.ts").then(
    ({ terminal }) => signal.aborted || render(pane, terminal(`/containers/${enc(id)}/shell`, signal)),
    (err) => render(pane, errorBox(err)),
  )
}
