// The swarm's services: the list joined with the tasks in memory (one GET /services, one GET
// /tasks), one service with its tasks per node, and the changes a manager makes to one: scale, a
// forced update (every task replaced), the swarm's own rollback to the spec before the last update.
import type { Engine } from "../engine/client.ts"
import type { ServiceSpec, SwarmService, SwarmTask } from "../engine/swarm.ts"
import { conflict } from "../errors/errors.ts"
import { swarmEvent, type SwarmEvents } from "./events.ts"
import { runningTasks } from "./nodes.ts"
import type { SwarmServiceDetail, SwarmServiceRecord, SwarmTaskRecord } from "./schemas.ts"

export const STACK_NAMESPACE = "com.docker.stack.namespace"

function modeOf(spec: ServiceSpec): SwarmServiceRecord["mode"] {
  if (spec.Mode?.Global) return "global"
  if (spec.Mode?.ReplicatedJob) return "replicated-job"
  if (spec.Mode?.GlobalJob) return "global-job"
  return "replicated"
}

/** `tasks`: this service's tasks that the swarm wants running. */
export function serviceRecord(s: SwarmService, tasks: SwarmTask[]): SwarmServiceRecord {
  const mode = modeOf(s.Spec)
  const running = runningTasks(tasks).length
  const u = s.UpdateStatus
  return {
    id: s.ID,
    name: s.Spec.Name,
    image: s.Spec.TaskTemplate.ContainerSpec?.Image ?? "",
    mode,
    replicas: {
      desired:
        s.ServiceStatus?.DesiredTasks ??
        (mode === "replicated" ? (s.Spec.Mode?.Replicated?.Replicas ?? 1) : tasks.length),
      running,
    },
    stack: s.Spec.Labels?.[STACK_NAMESPACE] ?? null,
    ports: (s.Endpoint?.Ports ?? s.Spec.EndpointSpec?.Ports ?? []).map((p) => ({
      protocol: p.Protocol ?? "tcp",
      target: p.TargetPort,
      published: p.PublishedPort ?? null,
      mode: p.PublishMode ?? "ingress",
    })),
    update_status: u?.State
      ? {
          state: u.State,
          message: u.Message || null,
          started_at: u.StartedAt ?? null,
          completed_at: u.CompletedAt ?? null,
        }
      : null,
    created: s.CreatedAt,
    updated: s.UpdatedAt,
    labels: s.Spec.Labels ?? {},
  }
}

function byService(tasks: SwarmTask[]): Map<string, SwarmTask[]> {
  const out = new Map<string, SwarmTask[]>()
  for (const t of tasks) out.set(t.ServiceID, [...(out.get(t.ServiceID) ?? []), t])
  return out
}

/** Every service (or a stack's: `stack`), by name, with its replicas counted from the tasks. */
export async function listSwarmServices(engine: Engine, stack?: string): Promise<SwarmServiceRecord[]> {
  const filters = stack ? { label: [`${STACK_NAMESPACE}=${stack}`] } : undefined
  const [services, tasks] = await Promise.all([
    engine.listServices(filters),
    engine.listTasks({ "desired-state": ["running"] }),
  ])
  const tasksOf = byService(tasks)
  return services.map((s) => serviceRecord(s, tasksOf.get(s.ID) ?? [])).sort((a, b) => a.name.localeCompare(b.name))
}

function taskRecord(t: SwarmTask, hostnames: Map<string, string>): SwarmTaskRecord {
  return {
    id: t.ID,
    slot: t.Slot ?? null,
    node_id: t.NodeID || null,
    node: (t.NodeID && hostnames.get(t.NodeID)) || null,
    state: t.Status.State,
    desired_state: t.DesiredState,
    message: t.Status.Message || null,
    error: t.Status.Err || null,
    container_id: t.Status.ContainerStatus?.ContainerID || null,
    timestamp: t.Status.Timestamp ?? null,
  }
}

/** One service with every task the swarm still keeps of it (the running ones first, then by slot and time). */
export async function getSwarmService(engine: Engine, id: string): Promise<SwarmServiceDetail> {
  const service = await engine.inspectService(id)
  const [tasks, nodes] = await Promise.all([engine.listTasks({ service: [service.ID] }), engine.listNodes()])
  const hostnames = new Map(nodes.map((n) => [n.ID, n.Description.Hostname]))
  const order = (t: SwarmTask) => (t.DesiredState === "running" ? 0 : 1)
  tasks.sort(
    (a, b) =>
      order(a) - order(b) ||
      (a.Slot ?? 0) - (b.Slot ?? 0) ||
      (b.Status.Timestamp ?? "").localeCompare(a.Status.Timestamp ?? ""),
  )
  const desiredRunning = tasks.filter((t) => t.DesiredState === "running")
  return { ...serviceRecord(service, desiredRunning), tasks: tasks.map((t) => taskRecord(t, hostnames)) }
}

/** Updates a service from the spec just read, with `change` applied; answers the service afterwards. */
async function update(
  engine: Engine,
  id: string,
  change: (s: SwarmService) => ServiceSpec,
  rollback?: "previous",
): Promise<SwarmService> {
  const service = await engine.inspectService(id)
  await engine.updateService(service.ID, service.Version.Index, change(service), rollback ? { rollback } : {})
  return service
}

export async function scaleService(
  engine: Engine,
  events: SwarmEvents,
  id: string,
  replicas: number,
): Promise<SwarmServiceDetail> {
  const service = await update(engine, id, (s) => {
    if (modeOf(s.Spec) !== "replicated")
      throw conflict(`service ${s.Spec.Name} is ${modeOf(s.Spec)}: only a replicated service scales`, "not_replicated")
    return { ...s.Spec, Mode: { Replicated: { Replicas: replicas } } }
  })
  swarmEvent(events, "service.scale", `service ${service.Spec.Name} scaled to ${replicas}`, {
    id: service.ID,
    name: service.Spec.Name,
  })
  return getSwarmService(engine, service.ID)
}

export async function forceUpdateService(engine: Engine, events: SwarmEvents, id: string): Promise<SwarmServiceDetail> {
  const service = await update(engine, id, (s) => ({
    ...s.Spec,
    TaskTemplate: { ...s.Spec.TaskTemplate, ForceUpdate: (s.Spec.TaskTemplate.ForceUpdate ?? 0) + 1 },
  }))
  swarmEvent(events, "service.force_update", `service ${service.Spec.Name}: every task replaced`, {
    id: service.ID,
    name: service.Spec.Name,
  })
  return getSwarmService(engine, service.ID)
}

export async function rollbackService(engine: Engine, events: SwarmEvents, id: string): Promise<SwarmServiceDetail> {
  const service = await update(
    engine,
    id,
    (s) => {
      if (!s.PreviousSpec)
        throw conflict(`service ${s.Spec.Name} has no previous spec to roll back to`, "no_previous_spec")
      return s.Spec
    },
    "previous",
  )
  swarmEvent(events, "service.rollback", `service ${service.Spec.Name} rolled back to its previous spec`, {
    id: service.ID,
    name: service.Spec.Name,
  })
  return getSwarmService(engine, service.ID)
}
