// An in-memory Engine for handler tests: same interface as lib/engine/client.ts, no socket.
// It records every call in `calls` so a test can check what the engine was asked to do.
import type {
  ContainerAction,
  ContainerInspect,
  ContainerSummary,
  Engine,
  EngineEvent,
  ExecSession,
  ImageSummary,
  LogLine,
  Network,
  RegistryAuthFor,
  Volume,
} from "#lib/engine/client.ts"
import type {
  NodeSpec,
  ServiceSpec,
  ServiceUpdateOptions,
  SwarmInitRequest,
  SwarmJoinRequest,
} from "#lib/engine/swarm.ts"
import { engineError, unreachable } from "#lib/engine/client.ts"
import { FakeSwarm } from "./fake-swarm.ts"

export interface FakeContainer {
  id: string
  name: string
  image: string
  state: "created" | "running" | "paused" | "exited"
  labels: Record<string, string>
  ports?: ContainerSummary["Ports"]
  mounts?: ContainerSummary["Mounts"]
  tty?: boolean
  env?: string[]
  logs?: LogLine[]
  /** Stats payloads answered in turn (the last one again once they run out); none: a payload of zeros. */
  stats?: Record<string, any>[]
  hostConfig?: Record<string, unknown>
  /** The init process's pid answered by inspect while the container runs. */
  pid?: number
  /** The list's Status text (default: "Up 1 second" while running, else the state), e.g. "Up 2 minutes (unhealthy)". */
  status?: string
  /** The id of the image it runs (the list's ImageID; default none). */
  imageId?: string
}

const nextId = (() => {
  let n = 0
  return () => (++n).toString(16).padStart(12, "0").padEnd(64, "f")
})()

export class FakeEngine implements Engine {
  readonly host: string = "fake://engine"
  calls: { op: string; args: unknown[] }[] = []
  down = false
  containers = new Map<string, FakeContainer>()
  images = new Map<string, ImageSummary>()
  volumes = new Map<string, Volume>()
  networks = new Map<string, Network>()
  archives = new Map<string, Uint8Array>()
  /** What `containerChanges` answers per container id (a test sets it). */
  changes = new Map<string, { Path: string; Kind: number }[]>()
  /** Not in a swarm until a test calls `swarm.seed()` (or the swarm routes init one). */
  swarm = new FakeSwarm()
  /** The credentials of a pull or push, as the real client is given them (a test sets the context's); recorded with the call. */
  registryAuth?: RegistryAuthFor
  private listeners = new Set<(e: EngineEvent) => void>()
  private history: EngineEvent[] = []

  constructor() {
    this.networks.set("bridge", {
      Id: "bridge0",
      Name: "bridge",
      Driver: "bridge",
      Scope: "local",
      Created: new Date(0).toISOString(),
      Labels: {},
    })
  }

  private record(op: string, ...args: unknown[]) {
    if (this.down) throw unreachable(this.host, new Error("connection refused"))
    this.calls.push({ op, args })
  }

  emit(type: string, action: string, id: string, attributes: Record<string, string> = {}) {
    const now = Date.now()
    const event: EngineEvent = {
      Type: type,
      Action: action,
      Actor: { ID: id, Attributes: attributes },
      time: Math.floor(now / 1000),
      timeNano: now * 1e6,
    }
    this.history.push(event)
    for (const l of this.listeners) l(event)
  }

  addContainer(c: Partial<FakeContainer> & { name: string }): FakeContainer {
    const full: FakeContainer = { id: nextId(), image: "busybox:latest", state: "running", labels: {}, logs: [], ...c }
    this.containers.set(full.id, full)
    return full
  }

  addImage(tags: string[], extra: Partial<ImageSummary> = {}): ImageSummary {
    const image: ImageSummary = {
      Id: `sha256:${nextId()}`,
      RepoTags: tags,
      RepoDigests: [],
      Created: 0,
      Size: 1000,
      ...extra,
    }
    this.images.set(image.Id, image)
    return image
  }

  private find(id: string): FakeContainer {
    const c = this.containers.get(id) ?? [...this.containers.values()].find((c) => c.name === id || c.id.startsWith(id))
    if (!c) throw engineError(404, `No such container: ${id}`)
    return c
  }

  private findImage(ref: string): ImageSummary {
    const image =
      this.images.get(ref) ??
      [...this.images.values()].find(
        (i) => i.Id === `sha256:${ref}` || i.Id.startsWith(`sha256:${ref}`) || i.RepoTags?.includes(ref),
      )
    if (!image) throw engineError(404, `No such image: ${ref}`)
    return image
  }

  private summary(c: FakeContainer): ContainerSummary {
    return {
      Id: c.id,
      Names: [`/${c.name}`],
      Image: c.image,
      ImageID: c.imageId ?? "",
      Created: 0,
      State: c.state,
      Status: c.status ?? (c.state === "running" ? "Up 1 second" : c.state),
      Ports: c.ports ?? [],
      Labels: c.labels,
      Mounts: c.mounts ?? [],
    }
  }

  async apiVersion() {
    return "1.41"
  }
  async ping() {
    this.record("ping")
  }
  async version() {
    this.record("version")
    return { Version: "fake", ApiVersion: "1.41", Os: "linux", Arch: "amd64" }
  }
  async info() {
    this.record("info")
    return {
      ID: "FAKE",
      Name: "fake",
      NCPU: 2,
      MemTotal: 1 << 30,
      OperatingSystem: "fake",
      ServerVersion: "fake",
      Swarm: this.swarm.info(),
    }
  }
  async df() {
    this.record("df")
    return { LayersSize: 0, Images: [...this.images.values()], Containers: [], Volumes: [], BuildCache: [] }
  }
  async listContainers(o: { all?: boolean; filters?: Record<string, string[]> } = {}) {
    this.record("listContainers", o)
    const labels = o.filters?.label ?? []
    return [...this.containers.values()]
      .filter((c) => o.all || c.state === "running" || c.state === "paused")
      .filter((c) =>
        labels.every((l) => {
          const [k, v] = l.split("=")
          return v === undefined ? k! in c.labels : c.labels[k!] === v
        }),
      )
      .map((c) => this.summary(c))
  }
  async inspectContainer(id: string): Promise<ContainerInspect> {
    this.record("inspectContainer", id)
    const c = this.find(id)
    return {
      Id: c.id,
      Name: `/${c.name}`,
      Created: new Date(0).toISOString(),
      Image: c.image,
      State: {
        Status: c.state,
        Running: c.state === "running" || c.state === "paused",
        Paused: c.state === "paused",
        ExitCode: 0,
        Pid: c.state === "running" || c.state === "paused" ? (c.pid ?? 0) : 0,
      },
      Config: { Image: c.image, Tty: c.tty ?? false, Env: c.env ?? [], Labels: c.labels },
      HostConfig: c.hostConfig ?? {},
      Mounts: c.mounts ?? [],
    }
  }
  async createContainer(spec: Record<string, any>, name?: string) {
    this.record("createContainer", spec, name)
    const c = this.addContainer({
      name: name ?? `c${this.containers.size}`,
      image: spec.Image,
      state: "created",
      labels: spec.Labels ?? {},
    })
    return { Id: c.id }
  }
  async containerAction(id: string, action: ContainerAction) {
    this.record("containerAction", id, action)
    const c = this.find(id)
    const next = { start: "running", restart: "running", stop: "exited", pause: "paused", unpause: "running" } as const
    if (action === "pause" && c.state !== "running") throw engineError(409, `Container ${id} is not running`)
    if (action === "unpause" && c.state !== "paused") throw engineError(409, `Container ${id} is not paused`)
    c.state = next[action]
    this.emit("container", action === "stop" ? "die" : action, c.id, { name: c.name, ...c.labels })
  }
  async removeContainer(id: string, o: { force?: boolean; volumes?: boolean } = {}) {
    this.record("removeContainer", id, o)
    const c = this.find(id)
    if (c.state === "running" && !o.force) throw engineError(409, `You cannot remove a running container ${c.id}`)
    this.containers.delete(c.id)
    this.emit("container", "destroy", c.id, { name: c.name })
  }
  async killContainer(id: string) {
    this.record("killContainer", id)
    const c = this.find(id)
    if (c.state !== "running" && c.state !== "paused") throw engineError(409, `Container ${id} is not running`)
    c.state = "exited"
    this.emit("container", "die", c.id, { name: c.name, ...c.labels })
  }
  async updateContainer(id: string, changes: Record<string, unknown>) {
    this.record("updateContainer", id, changes)
    const c = this.find(id)
    c.hostConfig = { ...c.hostConfig, ...changes }
  }
  async waitContainer(id: string) {
    this.record("waitContainer", id)
    this.find(id).state = "exited"
    return { StatusCode: 0 }
  }
  async stats(id: string) {
    this.record("stats", id)
    const c = this.find(id)
    if (c.state !== "running" && c.state !== "paused")
      return { read: "0001-01-01T00:00:00Z", cpu_stats: {}, memory_stats: {} }
    const queue = c.stats ?? []
    return (
      (queue.length > 1 ? queue.shift() : queue[0]) ?? {
        read: new Date().toISOString(),
        cpu_stats: {},
        memory_stats: {},
      }
    )
  }
  async *logs(id: string, o: { follow: boolean; tail: number | "all" }): AsyncIterable<LogLine> {
    this.record("logs", id, o)
    const all = this.find(id).logs ?? []
    yield* o.tail === "all" ? all : all.slice(Math.max(0, all.length - o.tail))
  }
  async *events(o: { since?: number; until?: number; signal?: AbortSignal } = {}): AsyncIterable<EngineEvent> {
    this.record("events", o)
    if (o.until !== undefined) return yield* this.history.filter((e) => e.time >= (o.since ?? 0) && e.time <= o.until!)
    const queue: EngineEvent[] = []
    let wake: (() => void) | undefined
    const listener = (e: EngineEvent) => {
      queue.push(e)
      wake?.()
    }
    this.listeners.add(listener)
    const aborted = new Promise<void>((r) => o.signal?.addEventListener("abort", () => r(), { once: true }))
    try {
      while (!o.signal?.aborted) {
        while (queue.length) yield queue.shift()!
        await Promise.race([new Promise<void>((r) => (wake = r)), aborted])
      }
    } finally {
      this.listeners.delete(listener)
    }
  }
  async exec(container: string, o: { cmd: string[] }): Promise<ExecSession> {
    this.record("exec", container, o)
    this.find(container)
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const output = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    return {
      id: `exec-${nextId()}`,
      output,
      // The fake shell echoes what it is sent, as a TTY in cooked mode would.
      write: (d) => controller.enqueue(typeof d === "string" ? new TextEncoder().encode(d) : d),
      close: () => controller.close(),
    }
  }
  async execResize(id: string, rows: number, cols: number) {
    this.record("execResize", id, rows, cols)
  }
  async execInspect(id: string) {
    this.record("execInspect", id)
    return { ExitCode: 0, Running: false }
  }
  async listImages() {
    this.record("listImages")
    return [...this.images.values()]
  }
  async inspectImage(ref: string) {
    this.record("inspectImage", ref)
    const i = this.findImage(ref)
    return { ...i, RepoTags: i.RepoTags ?? [], RepoDigests: i.RepoDigests ?? [] }
  }
  async removeImage(id: string, o: { force?: boolean } = {}) {
    this.record("removeImage", id, o)
    const i = this.findImage(id)
    this.images.delete(i.Id)
    return [{ Deleted: i.Id }]
  }
  async pullImage(ref: string) {
    const auth = await this.registryAuth?.(ref)
    this.record("pullImage", ref, ...(auth ? [auth] : []))
    if (![...this.images.values()].some((i) => i.RepoTags?.includes(ref))) this.addImage([ref])
  }
  async distributionInspect(ref: string) {
    const auth = await this.registryAuth?.(ref)
    this.record("distributionInspect", ref, ...(auth ? [auth] : []))
    return { Descriptor: { digest: `sha256:${new Bun.CryptoHasher("sha256").update(ref).digest("hex")}` } }
  }
  async pushImage(ref: string) {
    const auth = await this.registryAuth?.(ref)
    this.record("pushImage", ref, ...(auth ? [auth] : []))
  }
  async commitContainer(id: string, repo: string, tag: string, changes: string[] = []) {
    this.record("commitContainer", id, repo, tag, changes)
    return { Id: this.addImage([`${repo}:${tag}`], { Labels: { from: this.find(id).image } }).Id }
  }
  async tagImage(source: string, repo: string, tag: string) {
    this.record("tagImage", source, repo, tag)
    this.findImage(source).RepoTags?.push(`${repo}:${tag}`)
  }
  async saveImages(names: string[]) {
    this.record("saveImages", names)
    return new Response(names.join("\n")).body!
  }
  async loadImages(tar: ReadableStream<Uint8Array> | Uint8Array) {
    this.record("loadImages")
    const text = await new Response(tar as BodyInit).text()
    for (const name of text.split("\n").filter(Boolean)) this.addImage([name])
  }
  async listVolumes() {
    this.record("listVolumes")
    return [...this.volumes.values()]
  }
  async inspectVolume(name: string) {
    this.record("inspectVolume", name)
    const v = this.volumes.get(name)
    if (!v) throw engineError(404, `get ${name}: no such volume`)
    return v
  }
  async createVolume(name: string, labels: Record<string, string> = {}) {
    this.record("createVolume", name, labels)
    const v = this.volumes.get(name) ?? {
      Name: name,
      Driver: "local",
      Mountpoint: `/fake/volumes/${name}`,
      Labels: labels,
      Scope: "local",
    }
    this.volumes.set(name, v)
    return v
  }
  async removeVolume(name: string, o: { force?: boolean } = {}) {
    this.record("removeVolume", name, o)
    if (!this.volumes.delete(name)) throw engineError(404, `get ${name}: no such volume`)
  }
  async listNetworks() {
    this.record("listNetworks")
    return [...this.networks.values()]
  }
  async removeNetwork(id: string) {
    this.record("removeNetwork", id)
    const n = this.networks.get(id) ?? [...this.networks.values()].find((n) => n.Id === id || n.Name === id)
    if (!n) throw engineError(404, `network ${id} not found`)
    this.networks.delete(n.Name)
  }
  async prune(kind: "containers" | "images" | "volumes" | "networks") {
    this.record("prune", kind)
    if (kind === "containers") {
      const gone = [...this.containers.values()].filter((c) => c.state === "exited" || c.state === "created")
      for (const c of gone) this.containers.delete(c.id)
      return { ContainersDeleted: gone.map((c) => c.id), SpaceReclaimed: 0 }
    }
    return { SpaceReclaimed: 0 }
  }
  async containerChanges(id: string) {
    this.record("containerChanges", id)
    this.find(id)
    return this.changes.get(id) ?? null
  }
  async getArchive(container: string, path: string | Uint8Array) {
    this.record("getArchive", container, path)
    return new Response((this.archives.get(container) ?? new Uint8Array(0)) as BodyInit).body!
  }
  async putArchive(container: string, path: string | Uint8Array, tar: ReadableStream<Uint8Array> | Uint8Array) {
    this.record("putArchive", container, path)
    this.archives.set(container, new Uint8Array(await new Response(tar as BodyInit).arrayBuffer()))
  }
  async swarmInspect() {
    this.record("swarmInspect")
    return this.swarm.inspect()
  }
  async swarmInit(req: SwarmInitRequest) {
    this.record("swarmInit", req)
    return this.swarm.init(req)
  }
  async swarmJoin(req: SwarmJoinRequest) {
    this.record("swarmJoin", req)
    this.swarm.join(req)
  }
  async swarmLeave(o: { force?: boolean } = {}) {
    this.record("swarmLeave", o)
    this.swarm.leave(o)
  }
  async listNodes(filters?: Record<string, string[]>) {
    this.record("listNodes", filters)
    return this.swarm.listNodes(filters)
  }
  async inspectNode(id: string) {
    this.record("inspectNode", id)
    return this.swarm.inspectNode(id)
  }
  async updateNode(id: string, version: number, spec: NodeSpec) {
    this.record("updateNode", id, version, spec)
    this.swarm.updateNode(id, version, spec)
  }
  async removeNode(id: string, o: { force?: boolean } = {}) {
    this.record("removeNode", id, o)
    this.swarm.removeNode(id, o)
  }
  async createService(spec: ServiceSpec) {
    this.record("createService", spec)
    return this.swarm.createService(spec)
  }
  async listServices(filters?: Record<string, string[]>) {
    this.record("listServices", filters)
    return this.swarm.listServices(filters)
  }
  async inspectService(id: string) {
    this.record("inspectService", id)
    return this.swarm.inspectService(id)
  }
  async updateService(id: string, version: number, spec: ServiceSpec, o: ServiceUpdateOptions = {}) {
    this.record("updateService", id, version, spec, o)
    this.swarm.updateService(id, version, spec, o)
  }
  async removeService(id: string) {
    this.record("removeService", id)
    this.swarm.removeService(id)
  }
  async listTasks(filters?: Record<string, string[]>) {
    this.record("listTasks", filters)
    return this.swarm.listTasks(filters)
  }
  async *serviceLogs(id: string, o: { follow: boolean; tail: number | "all" }) {
    this.record("serviceLogs", id, o)
    yield* this.swarm.serviceLogs(id, o)
  }
}
