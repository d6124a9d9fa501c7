// Volumes, networks and prune (with a summary of what each prune would remove, computed from the lists).
import { del, enc, get, post } from "../api.ts"
import { action, empty, h, load, render, table, toast, when } from "../dom.ts"
import { BUILTIN_NETWORKS, container, pruneSummary, shortId, type ContainerAnswer, type ContainerDetail, type Image, type Network, type Volume } from "../model.ts"

function listPage(main: HTMLElement, title: string, body: HTMLElement): void {
  render(main, h("div", { class: "page-head" }, h("h1", null, title)), body)
}

export function volumesPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  listPage(main, "Volumes", body)
  const reload = load(
    body,
    () => get<Volume[]>("/volumes", { signal }),
    (volumes) =>
      table(
        volumes,
        [
          { title: "Name", cell: (v) => h("span", { class: "mono" }, v.name) },
          { title: "Driver", cell: (v) => v.driver },
          { title: "Stack", cell: (v) => v.labels["com.docker.compose.project"] ?? "—" },
          { title: "Created", cell: (v) => when(v.created ?? undefined) },
          { title: "Actions", cell: (v) => action("Delete", () => del(`/volumes/${enc(v.name)}`), { class: "small danger", confirm: `Delete volume ${v.name} and all its data?`, done: () => void reload(), label: `Delete ${v.name}` }) },
        ],
        "No volumes on this server.",
        "Volumes",
      ),
  )
}

export function networksPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  listPage(main, "Networks", body)
  const reload = load(
    body,
    () => get<Network[]>("/networks", { signal }),
    (networks) =>
      table(
        networks,
        [
          { title: "Name", cell: (n) => h("span", { class: "mono" }, n.name) },
          { title: "ID", cell: (n) => h("span", { class: "mono" }, shortId(n.id)) },
          { title: "Driver", cell: (n) => n.driver },
          { title: "Scope", cell: (n) => n.scope },
          { title: "Actions", cell: (n) => (BUILTIN_NETWORKS.has(n.name) ? "built in" : action("Delete", () => del(`/networks/${enc(n.id)}`), { class: "small danger", confirm: `Delete network ${n.name}?`, done: () => void reload(), label: `Delete ${n.name}` })) },
        ],
        "No networks on this server.",
        "Networks",
      ),
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
  render(main, h("h1", null, "Prune"), h("p", { class: "muted" }, "What each prune would remove now, from the current lists. The engine decides at the moment of the prune."), body)
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
            summary[kind].length ? h("ul", { class: "prune-list" }, summary[kind].map((x) => h("li", { class: "mono" }, x))) : empty("Nothing to remove."),
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
