// A stack's view (lib/stacks/orchestrator.ts `StackView`) from its containers, found by the compose
// labels (never by container name, which differs between compose v1 "proj_svc_1" and v2
// "proj-svc-1"), each under its compose service and shown with its stack's secrets hidden: a compose
// stack's, a compose project's made elsewhere, and what a view keeps of a stack kept here.
import { containerRecord, SERVICE_LABEL, STACK_LABEL, type Redactor } from "../engine/containers.ts"
import type { ContainerSummary, Engine } from "../engine/client.ts"
import { CAPABILITIES, type Kept, type OrchestratorName, type StackStatus, type StackView } from "./orchestrator.ts"

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
    if (p === undefined) continue
    const group = grouped.get(p)
    if (group) group.push(c)
    else grouped.set(p, [c])
  }
  return grouped
}

/** One compose project's containers on the engine. */
export async function projectContainers(engine: Pick<Engine, "listContainers">, project: string) {
  return engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })
}

/** The view of a stack (or of a compose project made elsewhere, without `kept`) from its containers, each under its compose service. */
export function containersView(
  name: string,
  containers: ContainerSummary[],
  { redactor, kept, orchestrator = "compose" }: { redactor: Redactor; kept?: Kept; orchestrator?: OrchestratorName },
): StackView {
  const services = [
    ...new Set([...(kept?.services ?? []), ...containers.map((c) => c.Labels[SERVICE_LABEL] ?? "")]),
  ].sort()
  return {
    name,
    managed: !!kept,
    orchestrator,
    capabilities: CAPABILITIES[orchestrator],
    status: stackStatus(containers),
    services: services.map((s) => ({
      name: s,
      containers: containers
        .filter((c) => (c.Labels[SERVICE_LABEL] ?? "") === s)
        .map((c) => containerRecord(c, redactor)),
    })),
    ...keptState(kept),
  }
}

/** The members of a view that come from what the service keeps. */
export function keptState(
  kept?: Kept,
): Pick<StackView, "current_version" | "env_pending" | "files_pending" | "files" | "recovered"> {
  return {
    current_version: kept?.state.current_version ?? null,
    env_pending: kept?.state.env_pending ?? false,
    files_pending: kept?.state.files_pending ?? false,
    files: kept?.state.files ?? [],
    ...(kept?.state.recovered ? { recovered: kept.state.recovered } : {}),
  }
}
