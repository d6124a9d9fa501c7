// The swarm's nodes (not the service's own node registry, lib/cluster): each with the tasks running
// on it; availability, labels and role changed with the version read; a node removed.
import type { Engine } from "../engine/client.ts"
import type { NodeSpec, SwarmNode, SwarmTask } from "../engine/swarm.ts"
import { swarmEvent, type SwarmEvents } from "./events.ts"
import type { SwarmNodeRecord } from "./schemas.ts"

/** Tasks the swarm wants running and that run. */
export const runningTasks = (tasks: SwarmTask[]) =>
  tasks.filter((t) => t.DesiredState === "running" && t.Status.State === "running")

export function nodeRecord(n: SwarmNode, tasksRunning: number): SwarmNodeRecord {
  return {
    id: n.ID,
    hostname: n.Description.Hostname,
    role: n.Spec.Role,
    availability: n.Spec.Availability,
    state: n.Status.State,
    message: n.Status.Message || null,
    engine_version: n.Description.Engine?.EngineVersion ?? null,
    labels: n.Spec.Labels ?? {},
    address: n.Status.Addr || null,
    leader: n.ManagerStatus?.Leader ?? false,
    reachability: n.ManagerStatus?.Reachability ?? null,
    tasks_running: tasksRunning,
  }
}

/** Every node with its running tasks counted: one GET /nodes and one GET /tasks. */
export async function listSwarmNodes(engine: Engine): Promise<SwarmNodeRecord[]> {
  const [nodes, tasks] = await Promise.all([engine.listNodes(), engine.listTasks({ "desired-state": ["running"] })])
  const running = new Map<string, number>()
  for (const t of runningTasks(tasks)) if (t.NodeID) running.set(t.NodeID, (running.get(t.NodeID) ?? 0) + 1)
  return nodes
    .map((n) => nodeRecord(n, running.get(n.ID) ?? 0))
    .sort((a, b) => a.hostname.localeCompare(b.hostname) || a.id.localeCompare(b.id))
}

export async function getSwarmNode(engine: Engine, id: string): Promise<SwarmNodeRecord> {
  const node = await engine.inspectNode(id)
  return nodeRecord(
    node,
    runningTasks(await engine.listTasks({ node: [node.ID], "desired-state": ["running"] })).length,
  )
}

export interface NodeChange {
  availability?: NodeSpec["Availability"]
  labels?: Record<string, string>
  role?: NodeSpec["Role"]
}

/** Changes a node's spec from the version just read; answers the node afterwards. */
export async function updateSwarmNode(
  engine: Engine,
  events: SwarmEvents,
  id: string,
  change: NodeChange,
): Promise<SwarmNodeRecord> {
  const node = await engine.inspectNode(id)
  const spec: NodeSpec = {
    ...node.Spec,
    ...(change.availability ? { Availability: change.availability } : {}),
    ...(change.labels ? { Labels: change.labels } : {}),
    ...(change.role ? { Role: change.role } : {}),
  }
  await engine.updateNode(node.ID, node.Version.Index, spec)
  const what = [
    change.availability && `availability ${change.availability}`,
    change.labels && `labels ${Object.keys(change.labels).sort().join(", ") || "(none)"}`,
    change.role && (change.role === "manager" ? "promoted to manager" : "demoted to worker"),
  ].filter(Boolean)
  swarmEvent(
    events,
    change.role ? (change.role === "manager" ? "node.promote" : "node.demote") : "node.update",
    `node ${node.Description.Hostname}: ${what.join("; ")}`,
    { id: node.ID, name: node.Description.Hostname },
  )
  return getSwarmNode(engine, node.ID)
}

export async function removeSwarmNode(
  engine: Engine,
  events: SwarmEvents,
  id: string,
  force: boolean,
): Promise<{ id: string; removed: true }> {
  const node = await engine.inspectNode(id)
  await engine.removeNode(node.ID, { force })
  swarmEvent(
    events,
    "node.remove",
    `node ${node.Description.Hostname} removed from the swarm${force ? " (forced)" : ""}`,
    { id: node.ID, name: node.Description.Hostname },
  )
  return { id: node.ID, removed: true }
}
