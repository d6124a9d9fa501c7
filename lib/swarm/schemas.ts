// The response schemas of the swarm as the API answers it: this engine's place in it, its nodes,
// services and their tasks.
import * as v from "valibot"

const nullableString = v.nullable(v.string())
const labels = v.record(v.string(), v.string())

export const swarmSchema = v.object({
  active: v.pipe(v.boolean(), v.description("this engine is a node of a swarm")),
  state: v.pipe(v.string(), v.description("the engine's LocalNodeState: inactive, pending, active, error or locked")),
  role: v.nullable(v.picklist(["manager", "worker"])),
  cluster_id: v.pipe(nullableString, v.description("known on a manager only")),
  node_id: nullableString,
  node_addr: nullableString,
  managers: v.array(v.object({ node_id: v.string(), addr: v.string() })),
  nodes: v.pipe(v.nullable(v.number()), v.description("how many nodes the swarm has (known on a manager only)")),
  error: nullableString,
})
export type SwarmState = v.InferOutput<typeof swarmSchema>

export const joinTokensSchema = v.object({ worker: v.string(), manager: v.string() })

export const swarmNodeSchema = v.object({
  id: v.string(),
  hostname: v.string(),
  role: v.picklist(["manager", "worker"]),
  availability: v.picklist(["active", "pause", "drain"]),
  state: v.pipe(v.string(), v.description("ready, down, unknown or disconnected")),
  message: nullableString,
  engine_version: nullableString,
  labels,
  address: nullableString,
  leader: v.boolean(),
  reachability: v.pipe(nullableString, v.description("a manager's reachability among the managers")),
  tasks_running: v.number(),
})
export type SwarmNodeRecord = v.InferOutput<typeof swarmNodeSchema>

export const swarmPortSchema = v.object({
  protocol: v.string(),
  target: v.number(),
  published: v.nullable(v.number()),
  mode: v.string(),
})

export const swarmServiceSchema = v.object({
  id: v.string(),
  name: v.string(),
  image: v.string(),
  mode: v.picklist(["replicated", "global", "replicated-job", "global-job"]),
  replicas: v.object({ desired: v.number(), running: v.number() }),
  stack: v.pipe(nullableString, v.description("the stack namespace label (com.docker.stack.namespace)")),
  ports: v.array(swarmPortSchema),
  update_status: v.nullable(
    v.object({ state: v.string(), message: nullableString, started_at: nullableString, completed_at: nullableString }),
  ),
  created: v.string(),
  updated: v.string(),
  labels,
})
export type SwarmServiceRecord = v.InferOutput<typeof swarmServiceSchema>

export const swarmTaskSchema = v.object({
  id: v.string(),
  slot: v.nullable(v.number()),
  node_id: nullableString,
  node: v.pipe(nullableString, v.description("the node's hostname")),
  state: v.string(),
  desired_state: v.string(),
  message: nullableString,
  error: nullableString,
  container_id: nullableString,
  timestamp: nullableString,
})
export type SwarmTaskRecord = v.InferOutput<typeof swarmTaskSchema>

export const swarmServiceDetailSchema = v.object({ ...swarmServiceSchema.entries, tasks: v.array(swarmTaskSchema) })
export type SwarmServiceDetail = v.InferOutput<typeof swarmServiceDetailSchema>

/** What a swarm address may be in a request: host or host:port (a bracketed IPv6 too), or an interface name. */
export const swarmAddr = v.pipe(
  v.string(),
  v.maxLength(255),
  v.regex(
    /^(\[[0-9a-fA-F:.]+\](:\d+)?|[A-Za-z0-9][A-Za-z0-9._-]*(:\d+)?)$/,
    "must be host, host:port or an interface name",
  ),
)
