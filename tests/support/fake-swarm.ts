// The fake engine's swarm, in memory: nodes, services and their tasks, rescheduled as a manager
// would (replicas spread over the ready, active nodes; tasks leave drained and down nodes; a forced
// update or a rollback replaces every task). Not a manager: the calls fail as the engine's do.
import { engineError, type Filters } from "#lib/engine/client.ts"
import type {
  NodeSpec,
  PortConfig,
  ServiceLogLine,
  ServiceSpec,
  ServiceUpdateOptions,
  SwarmInitRequest,
  SwarmInspect,
  SwarmJoinRequest,
  SwarmNode,
  SwarmService,
  SwarmTask,
} from "#lib/engine/swarm.ts"

let counter = 0
const id = (prefix: string) => `${prefix}${(++counter).toString(36).padStart(6, "0")}`.padEnd(25, "x")
const now = () => new Date().toISOString()

export interface FakeServiceOptions {
  name: string
  image?: string
  replicas?: number
  global?: boolean
  labels?: Record<string, string>
  ports?: PortConfig[]
  logs?: Omit<ServiceLogLine, "task" | "node">[]
}

export class FakeSwarm {
  /** This engine's part: not in a swarm, a worker (no manager calls), or the manager. */
  role: "inactive" | "worker" | "manager" = "inactive"
  nodes = new Map<string, SwarmNode>()
  services = new Map<string, SwarmService>()
  tasks = new Map<string, SwarmTask>()
  logs = new Map<string, Omit<ServiceLogLine, "task" | "node">[]>()
  clusterId = ""
  selfId = ""
  readonly tokens = {
    Worker: "SWMTKN-1-fakeclustersecret-workerpart",
    Manager: "SWMTKN-1-fakeclustersecret-managerpart",
  }

  /** Makes this engine the manager of a swarm with `workers` more ready, active nodes. */
  seed(workers = 2): this {
    this.init({ ListenAddr: "0.0.0.0:2377" })
    for (let i = 1; i <= workers; i++) this.addNode(`worker${i}`)
    return this
  }

  addNode(hostname: string, role: NodeSpec["Role"] = "worker"): SwarmNode {
    const node: SwarmNode = {
      ID: id("n"),
      Version: { Index: 1 },
      CreatedAt: now(),
      UpdatedAt: now(),
      Spec: { Role: role, Availability: "active", Labels: {} },
      Description: { Hostname: hostname, Engine: { EngineVersion: "fake" } },
      Status: { State: "ready", Addr: `10.0.0.${this.nodes.size + 10}` },
      ...(role === "manager"
        ? {
            ManagerStatus: {
              Leader: this.nodes.size === 0,
              Reachability: "reachable",
              Addr: `10.0.0.${this.nodes.size + 10}:2377`,
            },
          }
        : {}),
    }
    this.nodes.set(node.ID, node)
    return node
  }

  /** A node's daemon stops (`down`) or comes back (`ready`): its tasks move as the manager moves them. */
  setNodeState(nodeId: string, state: "ready" | "down") {
    this.findNode(nodeId).Status.State = state
    this.reconcileAll()
  }

  addService(o: FakeServiceOptions): SwarmService {
    const spec: ServiceSpec = {
      Name: o.name,
      Labels: o.labels ?? {},
      TaskTemplate: { ContainerSpec: { Image: o.image ?? "registry.test/app:1" }, ForceUpdate: 0 },
      Mode: o.global ? { Global: {} } : { Replicated: { Replicas: o.replicas ?? 1 } },
      EndpointSpec: { Mode: "dnsrr", Ports: o.ports ?? [] },
    }
    const service: SwarmService = {
      ID: id("s"),
      Version: { Index: 1 },
      CreatedAt: now(),
      UpdatedAt: now(),
      Spec: spec,
      Endpoint: { Spec: spec.EndpointSpec, Ports: o.ports ?? [] },
    }
    this.services.set(service.ID, service)
    this.logs.set(service.ID, o.logs ?? [])
    this.reconcile(service)
    return service
  }

  private manager() {
    if (this.role !== "manager")
      throw engineError(
        503,
        `This node is not a swarm manager. ${this.role === "worker" ? "Worker nodes can't be used to view or modify cluster state." : 'Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.'}`,
      )
  }
  private findNode(ref: string): SwarmNode {
    const node =
      this.nodes.get(ref) ??
      [...this.nodes.values()].find((n) => n.Description.Hostname === ref || n.ID.startsWith(ref))
    if (!node) throw engineError(404, `node ${ref} not found`)
    return node
  }
  private findService(ref: string): SwarmService {
    const s =
      this.services.get(ref) ?? [...this.services.values()].find((s) => s.Spec.Name === ref || s.ID.startsWith(ref))
    if (!s) throw engineError(404, `service ${ref} not found`)
    return s
  }
  private checkVersion(o: { Version: { Index: number }; UpdatedAt: string }, version: number) {
    if (o.Version.Index !== version) throw engineError(409, "update out of sequence")
    o.Version.Index++
    o.UpdatedAt = now()
  }

  /** Tasks off nodes that cannot run them; replicas (or one per node, global) started or stopped to match. */
  private reconcile(s: SwarmService, replaceAll = false) {
    const eligible = [...this.nodes.values()].filter(
      (n) => n.Status.State === "ready" && n.Spec.Availability === "active",
    )
    const running = () => [...this.tasks.values()].filter((t) => t.ServiceID === s.ID && t.DesiredState === "running")
    const shut = (t: SwarmTask) =>
      Object.assign(t, { DesiredState: "shutdown", Status: { ...t.Status, State: "shutdown", Timestamp: now() } })
    for (const t of running()) if (replaceAll || !eligible.some((n) => n.ID === t.NodeID)) shut(t)
    const start = (node: SwarmNode, slot?: number) => {
      const t: SwarmTask = {
        ID: id("t"),
        Version: { Index: 1 },
        CreatedAt: now(),
        UpdatedAt: now(),
        ServiceID: s.ID,
        NodeID: node.ID,
        Slot: slot,
        DesiredState: "running",
        Status: { State: "running", Timestamp: now(), ContainerStatus: { ContainerID: id("c").padEnd(64, "0") } },
      }
      this.tasks.set(t.ID, t)
    }
    if (s.Spec.Mode?.Global) {
      for (const n of eligible) if (!running().some((t) => t.NodeID === n.ID)) start(n)
      return
    }
    const want = s.Spec.Mode?.Replicated?.Replicas ?? 1
    for (const t of running().filter((t) => (t.Slot ?? 0) > want)) shut(t)
    for (let slot = 1; slot <= want && eligible.length; slot++) {
      if (running().some((t) => t.Slot === slot)) continue
      const load = (n: SwarmNode) => running().filter((t) => t.NodeID === n.ID).length
      start(
        eligible.reduce((a, b) => (load(b) < load(a) ? b : a)),
        slot,
      )
    }
  }
  private reconcileAll() {
    for (const s of this.services.values()) this.reconcile(s)
  }

  info() {
    if (this.role === "inactive")
      return {
        NodeID: "",
        NodeAddr: "",
        LocalNodeState: "inactive",
        ControlAvailable: false,
        Error: "",
        RemoteManagers: null,
      }
    const managers = [...this.nodes.values()].filter((n) => n.Spec.Role === "manager")
    return {
      NodeID: this.selfId,
      NodeAddr: "10.0.0.10",
      LocalNodeState: "active",
      ControlAvailable: this.role === "manager",
      Error: "",
      RemoteManagers: managers.map((n) => ({ NodeID: n.ID, Addr: n.ManagerStatus?.Addr })),
      Nodes: this.nodes.size,
      Managers: managers.length,
      ...(this.role === "manager" ? { Cluster: { ID: this.clusterId } } : {}),
    }
  }

  inspect(): SwarmInspect {
    this.manager()
    return {
      ID: this.clusterId,
      Version: { Index: 1 },
      CreatedAt: now(),
      UpdatedAt: now(),
      Spec: { Name: "default" },
      JoinTokens: { ...this.tokens },
    }
  }
  init(_req: SwarmInitRequest): string {
    if (this.role !== "inactive")
      throw engineError(
        409,
        'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.',
      )
    this.role = "manager"
    this.clusterId = id("cluster")
    this.selfId = this.addNode("manager", "manager").ID
    return this.selfId
  }
  join(req: SwarmJoinRequest) {
    if (this.role !== "inactive") throw engineError(409, "This node is already part of a swarm.")
    if (![this.tokens.Worker, this.tokens.Manager].includes(req.JoinToken)) throw engineError(400, "invalid join token")
    this.role = req.JoinToken === this.tokens.Manager ? "manager" : "worker"
    this.clusterId = id("cluster")
    this.selfId = this.addNode("joined", this.role === "manager" ? "manager" : "worker").ID
  }
  leave(o: { force?: boolean } = {}) {
    if (this.role === "inactive") throw engineError(503, "This node is not part of a swarm")
    if (this.role === "manager" && !o.force)
      throw engineError(
        409,
        "You are attempting to leave the swarm on a node that is participating as a manager. Use `--force` to ignore this message.",
      )
    this.role = "inactive"
    this.nodes.clear()
    this.services.clear()
    this.tasks.clear()
  }
  listNodes(_filters?: Filters): SwarmNode[] {
    this.manager()
    return structuredClone([...this.nodes.values()])
  }
  inspectNode(ref: string): SwarmNode {
    this.manager()
    return structuredClone(this.findNode(ref))
  }
  updateNode(ref: string, version: number, spec: NodeSpec) {
    this.manager()
    const node = this.findNode(ref)
    this.checkVersion(node, version)
    node.Spec = structuredClone(spec)
    if (spec.Role === "manager")
      node.ManagerStatus ??= { Leader: false, Reachability: "reachable", Addr: `${node.Status.Addr}:2377` }
    else delete node.ManagerStatus
    this.reconcileAll()
  }
  removeNode(ref: string, o: { force?: boolean } = {}) {
    this.manager()
    const node = this.findNode(ref)
    if (node.Status.State !== "down" && !o.force) throw engineError(400, `node ${ref} is not down and can't be removed`)
    this.nodes.delete(node.ID)
    this.reconcileAll()
  }
  createService(spec: ServiceSpec): { ID: string } {
    this.manager()
    const replicas = spec.Mode?.Replicated?.Replicas
    return {
      ID: this.addService({
        name: spec.Name,
        image: spec.TaskTemplate.ContainerSpec?.Image,
        replicas,
        global: !!spec.Mode?.Global,
        labels: spec.Labels,
      }).ID,
    }
  }
  listServices(_filters?: Filters): SwarmService[] {
    this.manager()
    return [...this.services.values()].map((s) => ({ ...structuredClone(s), ServiceStatus: this.status(s) }))
  }
  private status(s: SwarmService) {
    const running = [...this.tasks.values()].filter((t) => t.ServiceID === s.ID && t.Status.State === "running").length
    const nodes = [...this.nodes.values()].filter(
      (n) => n.Status.State === "ready" && n.Spec.Availability === "active",
    ).length
    return {
      RunningTasks: running,
      DesiredTasks: s.Spec.Mode?.Global ? nodes : (s.Spec.Mode?.Replicated?.Replicas ?? 1),
    }
  }
  inspectService(ref: string): SwarmService {
    this.manager()
    return structuredClone(this.findService(ref))
  }
  updateService(ref: string, version: number, spec: ServiceSpec, o: ServiceUpdateOptions = {}) {
    this.manager()
    const s = this.findService(ref)
    if (o.rollback === "previous" && !s.PreviousSpec)
      throw engineError(400, `service ${s.ID} does not have a previous spec`)
    this.checkVersion(s, version)
    const next = o.rollback === "previous" ? s.PreviousSpec! : structuredClone(spec)
    const replace =
      o.rollback === "previous" ||
      next.TaskTemplate.ForceUpdate !== s.Spec.TaskTemplate.ForceUpdate ||
      next.TaskTemplate.ContainerSpec?.Image !== s.Spec.TaskTemplate.ContainerSpec?.Image
    s.PreviousSpec = s.Spec
    s.Spec = next
    s.UpdateStatus = {
      State: o.rollback === "previous" ? "rollback_completed" : "completed",
      StartedAt: now(),
      CompletedAt: now(),
    }
    this.reconcile(s, replace)
  }
  removeService(ref: string) {
    this.manager()
    const s = this.findService(ref)
    this.services.delete(s.ID)
    for (const t of [...this.tasks.values()]) if (t.ServiceID === s.ID) this.tasks.delete(t.ID)
  }
  listTasks(filters: Filters = {}): SwarmTask[] {
    this.manager()
    const services = filters.service?.map((ref) => this.findService(ref).ID)
    const nodes = filters.node?.map((ref) => this.findNode(ref).ID)
    const desired = filters["desired-state"]
    return structuredClone(
      [...this.tasks.values()].filter(
        (t) =>
          (!services || services.includes(t.ServiceID)) &&
          (!nodes || nodes.includes(t.NodeID!)) &&
          (!desired || desired.includes(t.DesiredState)),
      ),
    )
  }
  /** The service's lines, written by its running tasks in turn. */
  serviceLogs(ref: string, o: { tail: number | "all" }): ServiceLogLine[] {
    this.manager()
    const s = this.findService(ref)
    const tasks = [...this.tasks.values()].filter((t) => t.ServiceID === s.ID && t.DesiredState === "running")
    const all = (this.logs.get(s.ID) ?? []).map((l, i) => ({
      ...l,
      task: tasks[i % Math.max(1, tasks.length)]?.ID ?? "",
      node: tasks[i % Math.max(1, tasks.length)]?.NodeID ?? "",
    }))
    return o.tail === "all" ? all : all.slice(Math.max(0, all.length - o.tail))
  }
}
