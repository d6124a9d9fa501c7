// Volumes, networks and prune (with a summary of what each prune would remove, computed from the lists).
import { del, enc, get, post } from "../api.ts"
import { action, empty, h, load, render, toast, when } from "../dom.ts"
import { listView } from "../list-view.ts"
import { distinct, type ListSpec } from "../lists.ts"
import {
  BUILTIN_NETWORKS,
  container,
  pruneSummary,
  shortId,
  type ContainerAnswer,
  type ContainerDetail,
  type Image,
  type Network,
  type Volume,
} from "../model.ts"

const stackOf = (v: { stack: string | null; labels: Record<string, string> }) =>
  v.stack ?? v.labels["com.docker.compose.project"] ?? ""

const volumeSpec: ListSpec<Volume> = {
  text: (v) => `${v.name} ${v.driver} ${stackOf(v)}`,
  filters: {
    stack: {
      label: "Stack",
      choices: (rows) => [["none", "In no stack"], ...distinct(rows, stackOf)],
      test: (v, s) => (s === "none" ? !stackOf(v) : stackOf(v) === s),
    },
    driver: { label: "Driver", choices: (rows) => distinct(rows, (v) => v.driver), test: (v, d) => v.driver === d },
  },
  sorts: {
    name: { label: "Name", value: (v) => v.name },
    stack: { label: "Stack", value: (v) => stackOf(v) || null },
    created: { label: "Created", value: (v) => (v.created ? Date.parse(v.created) || null : null), desc: true },
  },
}

export function volumesPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const status = h("div")
  const view = listView<Volume>({
    noun: "volumes",
    spec: volumeSpec,
    columns: [
      {
        title: "Name",
        sort: "name",
        cell: (v) =>
          h("a", { class: "mono", href: `#/volumes/${enc(v.name)}/files`, "aria-label": `Files of ${v.name}` }, v.name),
      },
      { title: "Driver", cell: (v) => v.driver },
      { title: "Stack", sort: "stack", cell: (v) => stackOf(v) || "—" },
      { title: "Created", sort: "created", cell: (v) => when(v.created ?? undefined) },
      {
        title: "Actions",
        cell: (v) =>
          action("Delete", () => del(`/volumes/${enc(v.name)}`), {
            class: "small danger",
            confirm: `Delete volume ${v.name} and all its data?`,
            done: () => void reload(),
            label: `Delete ${v.name}`,
          }),
      },
    ],
    key: (v) => v.name,
    name: (v) => v.name,
    bulk: [
      {
        label: "Delete",
        done: "deleted",
        danger: true,
        warning: "Their data is removed; volumes in use are refused.",
        applies: () => true,
        run: (v) => del(`/volumes/${enc(v.name)}`),
      },
    ],
    empty: "No volumes on this server.",
    changed: () => void reload(),
  })
  render(main, h("div", { class: "page-head" }, h("h1", null, "Volumes")), view.tools, status, view.body)
  const reload = load(
    status,
    () => get<Volume[]>("/volumes", { signal }),
    (volumes) => (view.show(volumes), null),
  )
}

const networkSpec: ListSpec<Network> = {
  text: (n) => `${n.name} ${n.id} ${n.driver} ${n.scope}`,
  filters: {
    kind: {
      label: "Kind",
      choices: [
        ["builtin", "Built in"],
        ["own", "Made here or by stacks"],
      ],
      test: (n, k) => BUILTIN_NETWORKS.has(n.name) === (k === "builtin"),
    },
    driver: { label: "Driver", choices: (rows) => distinct(rows, (n) => n.driver), test: (n, d) => n.driver === d },
    scope: { label: "Scope", choices: (rows) => distinct(rows, (n) => n.scope), test: (n, s) => n.scope === s },
  },
  sorts: {
    name: { label: "Name", value: (n) => n.name },
    driver: { label: "Driver", value: (n) => n.driver },
    scope: { label: "Scope", value: (n) => n.scope },
  },
}

export function networksPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const status = h("div")
  const view = listView<Network>({
    noun: "networks",
    spec: networkSpec,
    columns: [
      { title: "Name", sort: "name", cell: (n) => h("span", { class: "mono" }, n.name) },
      { title: "ID", cell: (n) => h("span", { class: "mono" }, shortId(n.id)) },
      { title: "Driver", sort: "driver", cell: (n) => n.driver },
      { title: "Scope", sort: "scope", cell: (n) => n.scope },
      {
        title: "Actions",
        cell: (n) =>
          BUILTIN_NETWORKS.has(n.name)
            ? "built in"
            : action("Delete", () => del(`/networks/${enc(n.id)}`), {
                class: "small danger",
                confirm: `Delete network ${n.name}?`,
                done: () => void reload(),
                label: `Delete ${n.name}`,
              }),
      },
    ],
    key: (n) => n.id,
    name: (n) => n.name,
    bulk: [
      {
        label: "Delete",
        done: "deleted",
        danger: true,
        warning: "Networks in use are refused.",
        applies: (n) => !BUILTIN_NETWORKS.has(n.name),
        run: (n) => del(`/networks/${enc(n.id)}`),
      },
    ],
    empty: "No networks on this server.",
    changed: () => void reload(),
  })
  render(main, h("div", { class: "page-head" }, h("h1", null, "Networks")), view.tools, status, view.body)
  const reload = load(
    status,
    () => get<Network[]>("/networks", { signal }),
    (networks) => (view.show(networks), null),
  )
}

const KINDS = [
  ["containers", "Stopped containers"],
  ["images", "Unused images"],
  ["volumes", "Unused volumes"],
  ["networks", "Unused networks"],
] as const

export function prunePage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  render(
    main,
    h("h1", null, "Prune"),
    h(
      "p",
      { class: "muted" },
      "What each prune would remove now, from the current lists. The engine decides at the moment of the prune.",
    ),
    body,
  )
  const reload = load(
    body,
    async () => {
      const [list, images, volumes, networks] = await Promise.all([
        get<ContainerAnswer[]>("/containers?all=true", { signal }),
        get<Image[]>("/images", { signal }),
        get<Volume[]>("/volumes", { signal }),
        get<Network[]>("/networks", { signal }),
      ])
      // The list has no mounts or networks: each container's detail says which volumes and networks are in use.
      const details = list.map((c) => get<ContainerDetail>(`/containers/${enc(c.id)}`, { signal }).catch(() => c))
      return pruneSummary((await Promise.all(details)).map(container), images, volumes, networks)
    },
    (summary) =>
      h(
        "div",
        { class: "cards prune" },
        KINDS.map(([kind, title]) =>
          h(
            "section",
            { class: "card", "aria-labelledby": `prune-${kind}` },
            h("h2", { id: `prune-${kind}` }, `${title}: ${summary[kind].length}`),
            summary[kind].length
              ? h(
                  "ul",
                  { class: "prune-list" },
                  summary[kind].map((x) => h("li", { class: "mono" }, x)),
                )
              : empty("Nothing to remove."),
            action(`Prune ${kind}`, () => post(`/prune/${kind}`), {
              class: "danger",
              needs: "admin",
              confirm: `Prune ${title.toLowerCase()}? This cannot be undone.`,
              done: (r) => {
                toast(`Pruned ${kind}${r?.SpaceReclaimed ? `, ${r.SpaceReclaimed} bytes reclaimed` : ""}`)
                void reload()
              },
            }),
          ),
        ),
      ),
  )
}
