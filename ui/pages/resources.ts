// Volumes, networks and prune (with a summary of what each prune would remove, computed from the lists).
import { del, enc, get, post } from "../api.ts"
import { action, empty, h, load, render, table, toast, when } from "../dom.ts"
import { BUILTIN_NETWORKS, container, containersOf, image, listOf, network, pruneSummary, shortId, volume } from "../model.ts"

function listPage(main: HTMLElement, title: string, body: HTMLElement): void {
  render(main, h("div", { class: "page-head" }, h("h1", null, title)), body)
}

export function volumesPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  listPage(main, "Volumes", body)
  const reload = load(
    body,
    () => get("/volumes", { signal }),
    (data) =>
      table(
        listOf(data, "volumes").map(volume),
        [
          { title: "Name", cell: (v) => h("span", { class: "mono" }, v.name) },
          { title: "Driver", cell: (v) => v.driver },
          { title: "Stack", cell: (v) => v.labels["com.docker.compose.project"] ?? "—" },
          { title: "Created", cell: (v) => when(v.created) },
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
    () => get("/networks", { signal }),
    (data) =>
      table(
        listOf(data, "networks").map(network),
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
      const [list, images, volumes, networks] = await Promise.all(["/containers?all=true", "/images", "/volumes", "/networks"].map((p) => get(p, { signal })))
      // The list has no mounts or networks: each container's detail says which volumes and networks are in use.
      const containers = await Promise.all(containersOf(list).map((c) => get(`/containers/${enc(c.id)}`, { signal }).then(container, () => c)))
      return pruneSummary(containers, listOf(images, "images").map(image), listOf(volumes, "volumes").map(volume), listOf(networks, "networks").map(network))
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
