// A stack's live state, read from the engine by the compose labels (never by container name, which
// differs between compose v1 "proj_svc_1" and v2 "proj-svc-1"). Compose projects that run on the
// engine but have no files here are reported too, with managed: false. A stack's containers are
// shown with its secrets hidden. A swarm stack's services are read from the swarm by the label the
// docker CLI puts on them, each with its desired and running replicas and its tasks on their nodes.
import { containerRecord, SERVICE_LABEL, STACK_LABEL, type ContainerRecord } from "../engine/containers.ts"
import type { ContainerSummary, Engine } from "../engine/client.ts"
import { redactorFor } from "./env.ts"
import { serviceNames, type Stack, type Stacks } from "./store.ts"
import { SWARM_STACK_LABEL } from "./swarm.ts"

/** A stack's services as recorded on its last deploy, else (a stack kept before they were) read from its compose file. */
const servicesOf = (stack: Stack): string[] => stack.state.services ?? serviceNames(stack.compose)

export type StackStatus = "running" | "partly running" | "paused" | "stopped"

/** A task of a swarm service the swarm keeps running, on its node. */
export interface TaskView {
  id: string
  /** The node's hostname (its id when the swarm does not say). */
  node: string
  state: string
  desired_state: string
  error?: string
}

export interface StackView {
  name: string
  managed: boolean
  /** What runs it: compose on this engine, or a swarm. */
  orchestrator: "compose" | "swarm"
  status: StackStatus
  /** A swarm stack's services have no containers here, and carry their replicas and tasks. */
  services: {
    name: string
    containers: ContainerRecord[]
    replicas?: { desired: number; running: number }
    tasks?: TaskView[]
  }[]
  current_version: number | null
  env_pending: boolean
  /** The stack's files changed since the current version (not yet applied). */
  files_pending: boolean
  /** The stack's files besides its compose file (relative paths). */
  files: string[]
}

/** running: all running; paused: all paused; stopped: none running or paused (or no containers); else partly running. */
export function stackStatus(containers: { State: string }[]): StackStatus {
  const count = (s: string) => containers.filter((c) => c.State === s).length
  const running = count("running")
  const paused = count("paused")
  if (containers.length && running === containers.length) return "running"
  if (containers.length && paused === containers.length) return "paused"
  if (running + paused === 0) return "stopped"
  return "partly running"
}

/** Containers grouped by compose project; containers of no project are left out. */
export function byProject(list: ContainerSummary[]): Map<string, ContainerSummary[]> {
  const grouped = new Map<string, ContainerSummary[]>()
  for (const c of list) {
    const p = c.Labels[STACK_LABEL]
    if (p !== undefined) grouped.set(p, [...(grouped.get(p) ?? []), c])
  }
  return grouped
}

/** One compose project's containers on the engine. */
export async function projectContainers(engine: Engine, project: string): Promise<ContainerSummary[]> {
  return engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })
}

function view(
  stacks: Stacks,
  name: string,
  containers: ContainerSummary[],
  declared: string[],
  state?: {
    orchestrator?: "swarm"
    current_version: number | null
    env_pending: boolean
    files_pending?: boolean
    files?: string[]
  },
): StackView {
  const services = [...new Set([...declared, ...containers.map((c) => c.Labels[SERVICE_LABEL] ?? "")])].sort()
  const redactor = redactorFor(stacks)
  return {
    name,
    managed: !!state,
    orchestrator: state?.orchestrator ?? "compose",
    status: stackStatus(containers),
    services: services.map((s) => ({
      name: s,
      containers: containers
        .filter((c) => (c.Labels[SERVICE_LABEL] ?? "") === s)
        .map((c) => containerRecord(c, redactor)),
    })),
    current_version: state?.current_version ?? null,
    env_pending: state?.env_pending ?? false,
    files_pending: state?.files_pending ?? false,
    files: state?.files ?? [],
  }
}

export type SwarmEngine = Pick<Engine, "listServices" | "listTasks" | "listNodes">

/** A swarm stack's view: its services by the stack's label, their replicas, and the tasks the swarm keeps running. */
async function swarmView(engine: SwarmEngine, stack: Stack): Promise<StackView> {
  const services = await engine.listServices({ label: [`${SWARM_STACK_LABEL}=${stack.name}`] })
  const [tasks, nodes] = services.length
    ? await Promise.all([engine.listTasks({ service: services.map((s) => s.ID) }), engine.listNodes()])
    : [[], []]
  const hostname = new Map(nodes.map((n) => [n.ID, n.Description?.Hostname]))
  const prefix = `${stack.name}_`
  const shown = services.map((s) => {
    const mine = tasks.filter(
      (t) => t.ServiceID === s.ID && (t.DesiredState === "running" || t.DesiredState === "ready"),
    )
    return {
      name: s.Spec.Name.startsWith(prefix) ? s.Spec.Name.slice(prefix.length) : s.Spec.Name,
      containers: [],
      replicas: {
        desired: s.ServiceStatus?.DesiredTasks ?? mine.length,
        running: s.ServiceStatus?.RunningTasks ?? mine.filter((t) => t.Status.State === "running").length,
      },
      tasks: mine.map((t) => ({
        id: t.ID,
        node: (t.NodeID && hostname.get(t.NodeID)) || t.NodeID || "",
        state: t.Status.State,
        desired_state: t.DesiredState,
        ...(t.Status.Err ? { error: t.Status.Err } : {}),
      })),
    }
  })
  const names = [...new Set([...servicesOf(stack), ...shown.map((s) => s.name)])].sort()
  const running = shown.reduce((n, s) => n + s.replicas.running, 0)
  const desired = shown.reduce((n, s) => n + s.replicas.desired, 0)
  return {
    name: stack.name,
    managed: true,
    orchestrator: "swarm",
    status:
      running === 0
        ? "stopped"
        : running >= desired && shown.every((s) => s.replicas.running >= s.replicas.desired)
          ? "running"
          : "partly running",
    services: names.map(
      (n) =>
        shown.find((s) => s.name === n) ?? { name: n, containers: [], replicas: { desired: 0, running: 0 }, tasks: [] },
    ),
    current_version: stack.state.current_version,
    env_pending: stack.state.env_pending,
    files_pending: stack.state.files_pending ?? false,
    files: stack.state.files ?? [],
  }
}

/** One stack's view: a stack with files here, else a compose project on the engine, else 404. */
export async function stackView(stacks: Stacks, engine: Engine, name: string): Promise<StackView> {
  const containers = await projectContainers(engine, name)
  if (!stacks.has(name) && containers.length) return view(stacks, name, containers, [])
  const stack = await stacks.read(name)
  if (stack.state.orchestrator === "swarm") return swarmView(engine, stack)
  return view(stacks, name, containers, servicesOf(stack), stack.state)
}

/** Every stack with files here, then every other compose project among the containers, by name; swarm stacks read from `swarm` (without it, as stopped). */
export async function stackViews(
  stacks: Stacks,
  containers: ContainerSummary[],
  swarm?: SwarmEngine,
): Promise<StackView[]> {
  const projects = byProject(containers)
  const managed = await Promise.all(
    stacks.names().map(async (name) => {
      const stack = await stacks.read(name)
      if (stack.state.orchestrator === "swarm")
        return swarm
          ? swarmView(swarm, stack).catch(() => view(stacks, name, [], servicesOf(stack), stack.state))
          : view(stacks, name, [], servicesOf(stack), stack.state)
      return view(stacks, name, projects.get(name) ?? [], servicesOf(stack), stack.state)
    }),
  )
  const others = [...projects]
    .filter(([p]) => !managed.some((m) => m.name === p))
    .map(([p, cs]) => view(stacks, p, cs, []))
  return [...managed, ...others].sort((a, b) => a.name.localeCompare(b.name))
}
