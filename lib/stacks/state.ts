// A stack's live state, read from the engine by the compose labels (never by container name, which
// differs between compose v1 "proj_svc_1" and v2 "proj-svc-1"). Compose projects that run on the
// engine but have no files here are reported too, with managed: false. A stack's containers are
// shown with its secrets hidden.
import { containerRecord, SERVICE_LABEL, STACK_LABEL, type ContainerRecord } from "../engine/containers.ts"
import type { ContainerSummary, Engine } from "../engine/client.ts"
import { redactorFor } from "./env.ts"
import { serviceNames, type Stack, type Stacks } from "./store.ts"

/** A stack's services as recorded on its last deploy, else (a stack kept before they were) read from its compose file. */
const servicesOf = (stack: Stack): string[] => stack.state.services ?? serviceNames(stack.compose)

export type StackStatus = "running" | "partly running" | "paused" | "stopped"

export interface StackView {
  name: string
  managed: boolean
  status: StackStatus
  services: { name: string; containers: ContainerRecord[] }[]
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

function view(stacks: Stacks, name: string, containers: ContainerSummary[], declared: string[], state?: { current_version: number | null; env_pending: boolean; files_pending?: boolean; files?: string[] }): StackView {
  const services = [...new Set([...declared, ...containers.map((c) => c.Labels[SERVICE_LABEL] ?? "")])].sort()
  const redactor = redactorFor(stacks)
  return {
    name,
    managed: !!state,
    status: stackStatus(containers),
    services: services.map((s) => ({ name: s, containers: containers.filter((c) => (c.Labels[SERVICE_LABEL] ?? "") === s).map((c) => containerRecord(c, redactor)) })),
    current_version: state?.current_version ?? null,
    env_pending: state?.env_pending ?? false,
    files_pending: state?.files_pending ?? false,
    files: state?.files ?? [],
  }
}

/** One stack's view: a stack with files here, else a compose project on the engine, else 404. */
export async function stackView(stacks: Stacks, engine: Engine, name: string): Promise<StackView> {
  const containers = await projectContainers(engine, name)
  if (!stacks.has(name) && containers.length) return view(stacks, name, containers, [])
  const stack = await stacks.read(name)
  return view(stacks, name, containers, servicesOf(stack), stack.state)
}

/** Every stack with files here, then every other compose project among the containers, by name. */
export async function stackViews(stacks: Stacks, containers: ContainerSummary[]): Promise<StackView[]> {
  const projects = byProject(containers)
  const managed = await Promise.all(stacks.names().map(async (name) => {
    const stack = await stacks.read(name)
    return view(stacks, name, projects.get(name) ?? [], servicesOf(stack), stack.state)
  }))
  const others = [...projects].filter(([p]) => !managed.some((m) => m.name === p)).map(([p, cs]) => view(stacks, p, cs, []))
  return [...managed, ...others].sort((a, b) => a.name.localeCompare(b.name))
}
