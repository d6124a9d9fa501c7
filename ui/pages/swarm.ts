// The Docker Swarm this engine is in: its nodes (engines in the swarm, as its manager sees them; not
// the servers of the Cluster page's node registry), drain and activate; its services with replicas
// desired and running, scale; a service's tasks and the node each runs on.
import type * as v from "valibot"
import type { swarmNodeSchema, swarmSchema, swarmServiceDetailSchema, swarmServiceSchema } from "#lib/swarm/schemas.ts"
import { enc, get, post } from "../api.ts"
import { action, badge, empty, h, load, modal, render, table, toast, when } from "../dom.ts"

type SwarmState = v.InferOutput<typeof swarmSchema>
type SwarmNode = v.InferOutput<typeof swarmNodeSchema>
type SwarmService = v.InferOutput<typeof swarmServiceSchema>
type ServiceDetail = v.InferOutput<typeof swarmServiceDetailSchema>

const replicas = (s: SwarmService) =>
  h(
    "span",
    { class: s.replicas.running < s.replicas.desired ? "warn" : undefined },
    `${s.replicas.running} / ${s.replicas.desired}`,
  )
const ports = (s: SwarmService) =>
  s.ports.map((p) => `${p.published ?? ""}${p.published ? ":" : ""}${p.target}/${p.protocol}`).join(", ") || "—"

/** Asks for a replica count; null when cancelled. */
async function askReplicas(s: SwarmService): Promise<number | null> {
  const input = h("input", {
    id: "scale-replicas",
    type: "number",
    min: 0,
    max: 10000,
    value: String(s.replicas.desired),
  })
  const answer = await modal(
    `Scale ${s.name}`,
    h("div", { class: "field" }, h("label", { for: "scale-replicas" }, "Replicas"), input),
    (close) => [
      h("button", { type: "button", onclick: () => close("cancel") }, "Cancel"),
      h("button", { type: "button", class: "primary", onclick: () => close("ok") }, "Scale"),
    ],
  )
  return answer === "ok" && input.value !== "" ? Number(input.value) : null
}

function scaleButton(s: SwarmService, done: () => void): HTMLElement | false {
  if (s.mode !== "replicated") return false
  return action(
    "Scale…",
    async () => {
      const n = await askReplicas(s)
      if (n === null) return
      await post(`/swarm/services/${enc(s.id)}/scale`, { replicas: n })
      toast(`${s.name}: ${n} replicas`)
      done()
    },
    { label: `Scale ${s.name}` },
  )
}

/** A swarm's services, linked to their tasks; `stack` lists one stack's only. */
export function swarmServices(el: HTMLElement, signal: AbortSignal, stack?: string): () => Promise<void> {
  const reload = load(
    el,
    () => get<SwarmService[]>(`/swarm/services${stack ? `?stack=${enc(stack)}` : ""}`, { signal }),
    (services) =>
      table(
        services,
        [
          { title: "Service", cell: (s) => h("a", { href: `#/swarm/services/${enc(s.id)}` }, s.name) },
          { title: "Image", cell: (s) => h("span", { class: "mono" }, s.image) },
          { title: "Mode", cell: (s) => s.mode },
          { title: "Running / desired", cell: replicas },
          ...(stack
            ? []
            : [
                {
                  title: "Stack",
                  cell: (s: SwarmService) => (s.stack ? h("a", { href: `#/stacks/${enc(s.stack)}` }, s.stack) : "—"),
                },
              ]),
          { title: "Ports", cell: ports },
          { title: "Update", cell: (s) => (s.update_status ? badge(s.update_status.state) : "—") },
          { title: "Actions", cell: (s) => scaleButton(s, () => void reload()) },
        ],
        stack ? "This stack has no services in the swarm." : "The swarm runs no services.",
        "Swarm services",
      ),
  )
  return reload
}

function nodeActions(n: SwarmNode, done: () => void): HTMLElement {
  const set = (label: string, availability: string) =>
    action(label, () => post(`/swarm/nodes/${enc(n.id)}`, { availability }), {
      label: `${label} ${n.hostname}`,
      confirm:
        availability === "drain"
          ? `Drain ${n.hostname}? Its tasks move to other nodes and it takes no new ones.`
          : undefined,
      done: () => (toast(`${n.hostname}: ${availability}`), done()),
    })
  return h(
    "div",
    { class: "actions" },
    n.availability !== "drain" && set("Drain", "drain"),
    n.availability !== "active" && set("Activate", "active"),
  )
}

export function swarmPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const head = h("section", { class: "card", "aria-labelledby": "swarm-h" })
  const nodes = h("section", { class: "card", "aria-labelledby": "swarm-nodes-h" })
  const services = h("section", { class: "card", "aria-labelledby": "swarm-services-h" })
  render(main, h("h1", null, "Swarm"), head)
  load(
    head,
    () => get<SwarmState>("/swarm", { signal }),
    (s) => {
      if (s.active && s.role === "manager") {
        main.append(nodes, services)
        const nodesBody = h("div")
        render(
          nodes,
          h("h2", { id: "swarm-nodes-h" }, "Swarm nodes"),
          h(
            "p",
            { class: "muted" },
            "The Docker engines in this swarm, as its manager sees them. The servers running Harbormaster are the node registry, on the Cluster page.",
          ),
          nodesBody,
        )
        const reloadNodes = load(
          nodesBody,
          () => get<SwarmNode[]>("/swarm/nodes", { signal }),
          (list) =>
            table(
              list,
              [
                { title: "Node", cell: (n) => [n.hostname, n.leader && [" ", badge("leader")]] },
                { title: "Role", cell: (n) => n.role },
                { title: "Availability", cell: (n) => badge(n.availability) },
                {
                  title: "State",
                  cell: (n) => [badge(n.state), n.message && h("small", { class: "muted" }, ` ${n.message}`)],
                },
                { title: "Address", cell: (n) => h("span", { class: "mono" }, n.address ?? "—") },
                { title: "Engine", cell: (n) => n.engine_version ?? "—" },
                { title: "Tasks running", cell: (n) => n.tasks_running },
                { title: "Actions", cell: (n) => nodeActions(n, () => void reloadNodes()) },
              ],
              "No nodes.",
              "Swarm nodes",
            ),
        )
        const servicesBody = h("div")
        render(services, h("h2", { id: "swarm-services-h" }, "Services"), servicesBody)
        swarmServices(servicesBody, signal)
      }
      return [
        h("h2", { id: "swarm-h" }, "This engine"),
        h("p", null, "Swarm: ", badge(s.active ? "active" : s.state), s.role && [" as ", badge(s.role)]),
        s.nodes !== null && h("p", null, `Nodes: ${s.nodes}`),
        s.error && h("p", { class: "error" }, s.error),
        !s.active && empty("This engine is in no swarm."),
        s.active &&
          s.role === "worker" &&
          h("p", { class: "muted" }, "A worker: the swarm's nodes and services are seen on a manager."),
      ]
    },
  )
}

export function swarmServicePage(main: HTMLElement, params: Record<string, string>, signal: AbortSignal): void {
  const body = h("div")
  render(main, h("p", null, h("a", { href: "#/swarm" }, "← Swarm")), body)
  const reload = load(
    body,
    () => get<ServiceDetail>(`/swarm/services/${enc(params.id!)}`, { signal }),
    (s) => [
      h(
        "div",
        { class: "page-head" },
        h("h1", null, s.name),
        h("span", { class: "mono muted" }, s.image),
        replicas(s),
        s.stack && h("a", { href: `#/stacks/${enc(s.stack)}` }, `stack ${s.stack}`),
        scaleButton(s, () => void reload()),
      ),
      h("h2", null, "Tasks"),
      table(
        s.tasks,
        [
          { title: "Slot", cell: (t) => t.slot ?? "—" },
          { title: "Node", cell: (t) => t.node ?? t.node_id ?? "—" },
          {
            title: "State",
            cell: (t) => [
              badge(t.state),
              t.desired_state !== t.state && h("small", { class: "muted" }, ` → ${t.desired_state}`),
            ],
          },
          { title: "Message", cell: (t) => t.error ?? t.message ?? "—" },
          { title: "Since", cell: (t) => when(t.timestamp ?? undefined) },
        ],
        "No tasks.",
        "Tasks",
      ),
    ],
  )
}
