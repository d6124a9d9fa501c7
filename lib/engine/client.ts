// The only module that talks to the Docker Engine API, over a unix socket or tcp (DOCKER_HOST).
// The API version is negotiated as the docker CLI does it (see `negotiate`), or pinned by
// DOCKER_API_VERSION. tests/support/fake-engine.ts implements the same interface in memory for handler tests.
import type { SocketHandler } from "bun"
import { hijack, type Hijacked } from "./exec.ts"
import { demux, jsonLines, lines, raw, splitTimestamp, type StreamName } from "./frames.ts"
import { conflict, DomainError, invalid, isDomainError, notFound, unavailable, upstream } from "../errors/errors.ts"
import { registryOf } from "./reference.ts"
import { registryError } from "./registry-errors.ts"
import {
  splitDetails,
  type NodeSpec,
  type ServiceLogLine,
  type ServiceSpec,
  type ServiceUpdateOptions,
  type SwarmInitRequest,
  type SwarmInspect,
  type SwarmJoinRequest,
  type SwarmNode,
  type SwarmService,
  type SwarmTask,
} from "./swarm.ts"

/**
 * The Engine API versions this client speaks: 1.41 (Docker 20.10) to 1.52 (Docker 29.0). Every
 * change between them (the Engine API's version history) was read against what this module sends
 * and reads. What it had to handle:
 * - Docker 29.0 serves 1.44 and newer only: the version is negotiated, not pinned.
 * - 1.42: a volume prune removes only anonymous volumes unless `all=true` is asked, a filter 1.41
 *   refuses: it is sent from 1.42 on (see `pruneFilters`).
 * What it reads and needed nothing: `VirtualSize` left image lists, image inspect and `system df`
 * (1.44; only `Size` is read); image inspect lost `Container`/`ContainerConfig` (1.45) and leaves
 * unset `Config` fields out (1.52); events lost `status`/`id`/`from` (1.52; `Type`/`Action`/`Actor`
 * are read); untagged images list `[]` instead of `<none>:<none>` (1.43; both are skipped).
 * The containerd image store (Docker 29's default on new installs) is a property of the engine, not
 * of the version: there an image's `Id` is its index digest, every tag has a `RepoDigests` entry,
 * list and inspect sizes differ, and a load or tag onto an existing name moves the name and keeps
 * the old image dangling, as the classic store does.
 */
export const API_OLDEST = "1.41"
export const API_NEWEST = "1.52"

export type ContainerAction = "start" | "stop" | "restart" | "pause" | "unpause"
export type PruneKind = "containers" | "images" | "volumes" | "networks"
export type Filters = Record<string, string[]>

export interface Port {
  IP?: string
  PrivatePort: number
  PublicPort?: number
  Type: string
}
export interface Mount {
  Type: string
  Name?: string
  Source: string
  Destination: string
  RW?: boolean
}
export interface ContainerSummary {
  Id: string
  Names: string[]
  Image: string
  ImageID: string
  Command?: string
  Created: number
  State: string
  Status: string
  Ports: Port[]
  Labels: Record<string, string>
  Mounts?: Mount[]
}
export interface ContainerInspect {
  Id: string
  Name: string
  Created: string
  Image: string
  /** `Pid`: the container's init process, in the engine's pid namespace (0 while it is not running). */
  State: { Status: string; Running: boolean; Paused: boolean; ExitCode: number; StartedAt?: string; Pid?: number }
  Config: { Image: string; Tty: boolean; Env?: string[]; Labels: Record<string, string>; Cmd?: string[] }
  HostConfig: Record<string, unknown>
  Mounts: Mount[]
  NetworkSettings?: Record<string, unknown>
}
export interface ImageSummary {
  Id: string
  RepoTags: string[] | null
  RepoDigests: string[] | null
  Created: number
  Size: number
  Containers?: number
  Labels?: Record<string, string> | null
}
export interface Volume {
  Name: string
  Driver: string
  Mountpoint: string
  CreatedAt?: string
  Labels: Record<string, string> | null
  Scope?: string
  Options?: Record<string, string> | null
}
export interface Network {
  Id: string
  Name: string
  Driver: string
  Scope: string
  Created: string
  Internal?: boolean
  Labels: Record<string, string> | null
  Containers?: Record<string, unknown>
}
export interface EngineEvent {
  Type: string
  Action: string
  Actor: { ID: string; Attributes: Record<string, string> }
  time: number
  timeNano: number
}
export interface LogLine {
  stream: StreamName
  ts: string
  line: string
}
export interface LogOptions {
  follow: boolean
  tail: number | "all"
  signal?: AbortSignal
}
export interface ExecOptions {
  cmd: string[]
  tty: boolean
  detachKeys: string
  env?: string[]
}
/** A hijacked exec connection: raw bytes both ways. */
export interface ExecSession extends Hijacked {
  id: string
}
export interface ContainerSpec {
  [key: string]: unknown
}

export interface EngineVersion {
  Version: string
  ApiVersion: string
  MinAPIVersion?: string
  Os: string
  Arch: string
  KernelVersion?: string
}

export interface Engine {
  /** The DOCKER_HOST this engine talks to, for display and for the compose CLI. */
  readonly host: string
  /** The API version spoken with the engine (negotiated on first use, or DOCKER_API_VERSION). */
  apiVersion(): Promise<string>
  ping(): Promise<void>
  /** GET /version; `signal` gives up on the answer. */
  version(signal?: AbortSignal): Promise<EngineVersion>
  /** GET /info; `signal` gives up on the answer. */
  info(signal?: AbortSignal): Promise<Record<string, any>>
  df(): Promise<{
    LayersSize?: number
    Images?: ImageSummary[]
    Containers?: { SizeRw?: number }[]
    Volumes?: { UsageData?: { Size: number } }[]
    BuildCache?: { Size: number }[]
  }>
  listContainers(opts?: { all?: boolean; filters?: Filters }): Promise<ContainerSummary[]>
  inspectContainer(id: string): Promise<ContainerInspect>
  createContainer(spec: ContainerSpec, name?: string): Promise<{ Id: string }>
  containerAction(id: string, action: ContainerAction): Promise<void>
  removeContainer(id: string, opts?: { force?: boolean; volumes?: boolean }): Promise<void>
  /** SIGKILL to a running container at once (409 when it is not running). */
  killContainer(id: string): Promise<void>
  /** Changes a container's resources or restart policy in place (`{ RestartPolicy: { Name: "no" } }`). */
  updateContainer(id: string, changes: Record<string, unknown>): Promise<void>
  waitContainer(id: string): Promise<{ StatusCode: number }>
  /** One reading of a container's stats (`stream=false&one-shot=true`: at once, no second sample; precpu is empty). */
  stats(id: string): Promise<Record<string, any>>
  logs(id: string, opts: LogOptions): AsyncIterable<LogLine>
  events(opts?: { since?: number; until?: number; filters?: Filters; signal?: AbortSignal }): AsyncIterable<EngineEvent>
  exec(container: string, opts: ExecOptions): Promise<ExecSession>
  execResize(execId: string, rows: number, cols: number): Promise<void>
  execInspect(execId: string): Promise<{ ExitCode: number | null; Running: boolean }>
  listImages(): Promise<ImageSummary[]>
  inspectImage(ref: string): Promise<Record<string, any> & { Id: string; RepoTags: string[]; RepoDigests: string[] }>
  removeImage(id: string, opts?: { force?: boolean }): Promise<Record<string, string>[]>
  /** Pulls with the credentials `registryAuth` finds for the reference; a registry's refusal is an error naming it. */
  pullImage(ref: string, onProgress?: (line: string) => void): Promise<void>
  /** Pushes as `pullImage` pulls. */
  pushImage(ref: string, onProgress?: (line: string) => void): Promise<void>
  /**
   * What the registry serves for `ref`, asked by the engine with the reference's credentials as a
   * pull would be (`GET /distribution/{name}/json`); a refusal is an error naming the registry.
   */
  distributionInspect(ref: string): Promise<{ Descriptor: { digest: string } }>
  tagImage(source: string, repo: string, tag: string): Promise<void>
  /** Makes an image of a container's filesystem, tagged repo:tag; `changes` are Dockerfile instructions (ENTRYPOINT, ENV ...). */
  commitContainer(id: string, repo: string, tag: string, changes?: string[]): Promise<{ Id: string }>
  saveImages(names: string[]): Promise<ReadableStream<Uint8Array>>
  loadImages(tar: ReadableStream<Uint8Array> | Uint8Array): Promise<void>
  listVolumes(filters?: Filters): Promise<Volume[]>
  inspectVolume(name: string): Promise<Volume>
  /** A volume of the local driver, or of `driver` with its options (`{ type: "tmpfs", device: "tmpfs" }`). */
  createVolume(
    name: string,
    labels?: Record<string, string>,
    driver?: { Driver?: string; DriverOpts?: Record<string, string> },
  ): Promise<Volume>
  removeVolume(name: string, opts?: { force?: boolean }): Promise<void>
  listNetworks(): Promise<Network[]>
  removeNetwork(id: string): Promise<void>
  prune(kind: PruneKind): Promise<Record<string, unknown>>
  /** A path of the container's filesystem as a tar (`path` as text, or as bytes when its names are not UTF-8). */
  getArchive(container: string, path: string | Uint8Array): Promise<ReadableStream<Uint8Array>>
  /** Unpacks a tar into the folder `path` of the container's filesystem. */
  putArchive(container: string, path: string | Uint8Array, tar: ReadableStream<Uint8Array> | Uint8Array): Promise<void>
  /** What changed in the container's filesystem against its image: `Kind` 0 modified, 1 added, 2 deleted. */
  containerChanges(id: string): Promise<{ Path: string; Kind: number }[] | null>
  // The swarm: every call but init, join and leave needs a manager (409 not_swarm_manager elsewhere).
  swarmInspect(): Promise<SwarmInspect>
  /** Makes this engine a swarm's first manager; answers its node id. */
  swarmInit(req: SwarmInitRequest): Promise<string>
  swarmJoin(req: SwarmJoinRequest): Promise<void>
  swarmLeave(opts?: { force?: boolean }): Promise<void>
  listNodes(filters?: Filters): Promise<SwarmNode[]>
  inspectNode(id: string): Promise<SwarmNode>
  /** `version` is the node's `Version.Index` as read: a node changed since is a 409 conflict. */
  updateNode(id: string, version: number, spec: NodeSpec): Promise<void>
  removeNode(id: string, opts?: { force?: boolean }): Promise<void>
  createService(spec: ServiceSpec): Promise<{ ID: string }>
  /** With each service's `ServiceStatus` (running and desired tasks). */
  listServices(filters?: Filters): Promise<SwarmService[]>
  inspectService(id: string): Promise<SwarmService>
  /** `version` as for updateNode; `rollback: "previous"` is the swarm's own rollback to `PreviousSpec`. */
  updateService(id: string, version: number, spec: ServiceSpec, opts?: ServiceUpdateOptions): Promise<void>
  removeService(id: string): Promise<void>
  listTasks(filters?: Filters): Promise<SwarmTask[]>
  /** A service's log, every task's lines, each with the task and node that wrote it. */
  serviceLogs(id: string, opts: LogOptions): AsyncIterable<ServiceLogLine>
}

interface Target {
  unix?: string
  base: string
  hostname?: string
  port?: number
}

export function parseDockerHost(host: string): Target {
  if (host.startsWith("unix://")) return { unix: host.slice("unix://".length), base: "http://localhost" }
  const m = /^(?:tcp|http):\/\/([^:/]+)(?::(\d+))?\/?$/.exec(host)
  if (!m) throw new Error(`DOCKER_HOST must be unix:///path or tcp://host:port, got "${host}"`)
  const port = Number(m[2] ?? 2375)
  return { base: `http://${m[1]}:${port}`, hostname: m[1], port }
}

/**
 * An id, name or image reference as one URL path segment. Refuses what could step out of the
 * segment once the engine decodes it: dot segments, control characters, absurd lengths.
 */
export function seg(id: string): string {
  if (!id || id.length > 512 || id.split("/").some((p) => p === "." || p === "..") || /[\x00-\x1f\x7f\\]/.test(id))
    throw invalid(`"${id.slice(0, 80)}" is not a valid id or name`, "invalid_id")
  return encodeURIComponent(id)
}

/** The archive routes' `?path=`, its bytes percent-encoded one by one (a name need not be UTF-8). */
export function archivePath(path: string | Uint8Array): string {
  const bytes = typeof path === "string" ? new TextEncoder().encode(path) : path
  let out = "?path="
  for (const b of bytes)
    out += /[A-Za-z0-9_.~/-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, "0")}`
  return out
}

function query(params: Record<string, unknown> = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue
    q.set(k, typeof v === "object" ? JSON.stringify(v) : String(v))
  }
  const s = q.toString()
  return s ? `?${s}` : ""
}

/**
 * Maps an engine error status to a domain error: the engine's message is kept. The engine's 403
 * (a pre-defined network, a network with containers attached) is a conflict with the resource's state.
 */
export function engineError(status: number, message: string): DomainError {
  if (status === 404) return notFound(message)
  if (status === 409 || status === 403) return conflict(message)
  if (status === 304) return conflict(message || "already in that state", "not_modified")
  if (status === 400) return invalid(message, "bad_request")
  // The swarm's refusals: not a manager (503, 406 before 1.24), a manager leaving, a stale object version.
  if (/not a swarm manager|not part of a swarm/i.test(message)) return conflict(message, "not_swarm_manager")
  if (((status === 503 || status === 406) && /swarm/i.test(message)) || /update out of sequence/i.test(message))
    return conflict(message)
  return upstream(message || `engine answered ${status}`, "engine_error")
}

/** Orders two API versions ("1.9" < "1.41"). */
export function compareApi(a: string, b: string): number {
  const [am = 0, an = 0] = a.split(".").map(Number)
  const [bm = 0, bn = 0] = b.split(".").map(Number)
  return am - bm || an - bn
}

const tooOld = (engineNewest: string) =>
  unavailable(
    `the Docker engine speaks API ${engineNewest} at most; this service needs ${API_OLDEST} to ${API_NEWEST} (Docker 20.10 or newer)`,
    "engine_unsupported",
  )

/**
 * The version to speak, as the docker CLI chooses it: the newest both sides know. `engineNewest`
 * is the engine's `API-Version` (from `GET /_ping`). An engine whose floor is above API_NEWEST
 * refuses the first call, and that refusal is turned into the same 503 (see `refusedVersion`).
 */
export function negotiate(engineNewest: string): string {
  if (compareApi(engineNewest, API_OLDEST) < 0) throw tooOld(engineNewest)
  return compareApi(engineNewest, API_NEWEST) < 0 ? engineNewest : API_NEWEST
}

/** The engine's answer to a version it does not serve ("client version 1.41 is too old. Minimum supported API version is 1.44"). */
export function refusedVersion(status: number, message: string, spoken: string): DomainError | undefined {
  if (status !== 400 || !/client version .* is too (old|new)/i.test(message)) return undefined
  const floor = /minimum supported API version is ([\d.]+)/i.exec(message)?.[1]
  return unavailable(
    `the Docker engine refused API ${spoken}${floor ? ` (it serves ${floor} and newer)` : ""}; this service speaks ${API_OLDEST} to ${API_NEWEST}: ${message}`,
    "engine_unsupported",
  )
}

/** What a prune removes: unused images with tags too (not only dangling ones), named volumes too (not only anonymous ones, from API 1.42). */
export function pruneFilters(kind: PruneKind, version: string): Filters | undefined {
  if (kind === "images") return { dangling: ["false"] }
  if (kind === "volumes" && compareApi(version, "1.42") >= 0) return { all: ["true"] }
  return undefined
}

export function unreachable(host: string, cause: unknown): DomainError {
  const why = cause instanceof Error ? cause.message : String(cause)
  return unavailable(`the Docker engine at ${host} is unreachable: ${why}`, "engine_unavailable")
}

async function* iterate(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
    body.cancel().catch(() => {})
  }
}

/** Reads a pull/push/load progress stream; the engine reports failures inside a 200 body. */
async function progress(body: ReadableStream<Uint8Array> | null, onProgress?: (line: string) => void) {
  for await (const msg of jsonLines<{
    status?: string
    progress?: string
    id?: string
    error?: string
    stream?: string
  }>(iterate(body))) {
    if (msg.error) throw upstream(msg.error, "engine_error")
    const text = msg.stream?.trim() || [msg.id, msg.status, msg.progress].filter(Boolean).join(" ")
    if (text) onProgress?.(text)
  }
}

/** The engine's error body as a message (its JSON `message`, else the text). */
async function errorMessage(res: Response): Promise<string> {
  const text = await res.text()
  let message = text
  try {
    message = JSON.parse(text).message ?? text
  } catch {}
  return message.trim()
}

type CallInit = { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }

/**
 * The connection to one engine: the API version spoken, each call's request and its errors, and
 * the hijacked exec. `pinned` is DOCKER_API_VERSION: spoken as given, as the docker CLI does.
 * Otherwise the version is negotiated on the first call and again after the engine was unreachable
 * or refused the version (an engine upgraded or replaced under a running service).
 */
class Connection {
  private readonly target: Target
  private spoken: Promise<string> | undefined

  constructor(
    readonly host: string,
    private readonly pinned?: string,
  ) {
    this.target = parseDockerHost(host)
  }

  /** The engine's newest version from its ping, negotiated. */
  private async ask(): Promise<string> {
    let res: Response
    try {
      res = await fetch(`${this.target.base}/_ping`, { unix: this.target.unix } as RequestInit)
      await res.arrayBuffer()
    } catch (err) {
      throw unreachable(this.host, err)
    }
    const newest = res.headers.get("api-version")
    if (!res.ok || !newest)
      throw upstream(
        `the Docker engine at ${this.host} answered its ping with ${res.status} and no API-Version`,
        "engine_error",
      )
    return negotiate(newest)
  }

  readonly apiVersion = (): Promise<string> => {
    if (this.pinned) return Promise.resolve(this.pinned)
    this.spoken ??= this.ask().catch((err) => {
      this.spoken = undefined
      throw err
    })
    return this.spoken
  }

  /** One request; an unreachable engine is a 503 and the version is negotiated again. */
  private async send(method: string, path: string, init: CallInit): Promise<Response> {
    const isStream = init.body instanceof ReadableStream || init.body instanceof Uint8Array
    const headers = {
      ...(init.body !== undefined && !isStream ? { "content-type": "application/json" } : {}),
      ...init.headers,
    }
    try {
      return await fetch(`${this.target.base}${path}`, {
        method,
        headers,
        body: init.body === undefined ? undefined : isStream ? (init.body as BodyInit) : JSON.stringify(init.body),
        signal: init.signal,
        unix: this.target.unix,
        decompress: false,
        ...(isStream ? { duplex: "half" } : {}),
      } as RequestInit)
    } catch (err) {
      if ((err as Error)?.name === "AbortError") throw err
      this.spoken = undefined
      throw unreachable(this.host, err)
    }
  }

  /** A call in the spoken version; an answer of 300 or more (but 304) is the engine's error. */
  async call(method: string, path: string, init: CallInit = {}): Promise<Response> {
    const version = await this.apiVersion()
    const res = await this.send(method, `/v${version}${path}`, init)
    if (res.status < 300 || res.status === 304) return res
    const message = await errorMessage(res)
    const refused = refusedVersion(res.status, message, version)
    if (refused) this.spoken = undefined
    throw refused ?? engineError(res.status, message)
  }

  async json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const text = await (await this.call(method, path, { body, signal })).text()
    return (text ? JSON.parse(text) : undefined) as T
  }

  /** A call answered without a body worth reading; 304 (nothing to do) is an error too. */
  async done(method: string, path: string, body?: unknown): Promise<void> {
    const res = await this.call(method, path, { body })
    if (res.status === 304) throw engineError(304, "")
    await res.arrayBuffer()
  }

  async hijack(path: string, body: unknown): Promise<Hijacked> {
    return hijack({
      path: `/v${await this.apiVersion()}${path}`,
      body,
      connect: (socket) => this.connect(socket),
      refused: engineError,
      lost: (err) => unreachable(this.host, err),
    })
  }

  private connect(socket: SocketHandler<unknown>) {
    const { unix, hostname, port } = this.target
    return unix ? Bun.connect({ unix, socket }) : Bun.connect({ hostname: hostname!, port: port!, socket })
  }
}

function systemCalls(c: Connection) {
  return {
    host: c.host,
    apiVersion: c.apiVersion,
    ping: async () => void (await (await c.call("GET", "/_ping")).text()),
    version: (signal) => c.json("GET", "/version", undefined, signal),
    info: (signal) => c.json("GET", "/info", undefined, signal),
    df: () => c.json("GET", "/system/df"),
    async *events(o = {}) {
      const res = await c.call("GET", `/events${query({ since: o.since, until: o.until, filters: o.filters })}`, {
        signal: o.signal,
      })
      yield* jsonLines<EngineEvent>(iterate(res.body))
    },
    prune: async (kind) =>
      c.json("POST", `/${kind}/prune${query({ filters: pruneFilters(kind, await c.apiVersion()) })}`),
  } satisfies Partial<Engine>
}

function containerCalls(c: Connection) {
  return {
    listContainers: (o = {}) =>
      c.json("GET", `/containers/json${query({ all: o.all ? 1 : undefined, filters: o.filters })}`),
    inspectContainer: (id) => c.json("GET", `/containers/${seg(id)}/json`),
    createContainer: (spec, name) => c.json("POST", `/containers/create${query({ name })}`, spec),
    containerAction: (id, action) => c.done("POST", `/containers/${seg(id)}/${action}`),
    removeContainer: (id, o = {}) =>
      c.done("DELETE", `/containers/${seg(id)}${query({ force: o.force, v: o.volumes })}`),
    killContainer: (id) => c.done("POST", `/containers/${seg(id)}/kill`),
    updateContainer: (id, changes) => c.done("POST", `/containers/${seg(id)}/update`, changes),
    waitContainer: (id) => c.json("POST", `/containers/${seg(id)}/wait`),
    stats: (id) => c.json("GET", `/containers/${seg(id)}/stats${query({ stream: false, "one-shot": true })}`),
    async *logs(id, o) {
      const info = await c.json<ContainerInspect>("GET", `/containers/${seg(id)}/json`)
      const res = await c.call(
        "GET",
        `/containers/${seg(id)}/logs${query({ stdout: 1, stderr: 1, timestamps: 1, follow: o.follow ? 1 : 0, tail: o.tail })}`,
        { signal: o.signal },
      )
      const bytes = iterate(res.body)
      for await (const { stream, text } of lines(info.Config.Tty ? raw(bytes) : demux(bytes)))
        yield { stream, ...splitTimestamp(text) }
    },
    async exec(container, o) {
      const start = {
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: o.tty,
        Cmd: o.cmd,
        Env: o.env,
        DetachKeys: o.detachKeys,
      }
      const { Id } = await c.json<{ Id: string }>("POST", `/containers/${seg(container)}/exec`, start)
      return { id: Id, ...(await c.hijack(`/exec/${Id}/start`, { Detach: false, Tty: o.tty })) }
    },
    execResize: (id, rows, cols) => c.done("POST", `/exec/${seg(id)}/resize${query({ h: rows, w: cols })}`),
    execInspect: (id) => c.json("GET", `/exec/${seg(id)}/json`),
    commitContainer: (id, repo, tag, changes = []) => {
      const q = new URLSearchParams({ container: id, repo, tag })
      for (const change of changes) q.append("changes", change)
      return c.json("POST", `/commit?${q}`)
    },
    getArchive: async (container, path) =>
      (await c.call("GET", `/containers/${seg(container)}/archive${archivePath(path)}`)).body!,
    containerChanges: (id) => c.json("GET", `/containers/${seg(id)}/changes`),
    putArchive: (container, path, tar) =>
      c
        .call("PUT", `/containers/${seg(container)}/archive${archivePath(path)}`, {
          body: tar,
          headers: { "content-type": "application/x-tar" },
        })
        .then((r) => void r.arrayBuffer()),
  } satisfies Partial<Engine>
}

/**
 * The credentials that go with a pull or push of a reference: the value of `X-Registry-Auth`
 * (base64url JSON, lib/registries), or undefined for none (anonymous).
 */
export type RegistryAuthFor = (ref: string) => Promise<string | undefined>

/** A pull's or push's failure: the registry's refusal named (lib/engine/registry-errors.ts), else the engine's error as it was. */
function registryFailure(ref: string, err: unknown): unknown {
  const registry = registryOf(ref)
  if (!registry || !isDomainError(err, "upstream", "not_found")) return err
  return registryError(registry, err.message) ?? err
}

function imageCalls(c: Connection, auth: RegistryAuthFor) {
  /** POST `path` with the reference's credentials, its progress read to the end. */
  const transfer = async (ref: string, path: string, onProgress?: (line: string) => void) => {
    try {
      const header = (await auth(ref)) ?? btoa("{}")
      const res = await c.call("POST", path, { headers: { "X-Registry-Auth": header } })
      await progress(res.body, onProgress)
    } catch (err) {
      throw registryFailure(ref, err)
    }
  }
  return {
    listImages: () => c.json("GET", "/images/json"),
    inspectImage: (ref) => c.json("GET", `/images/${seg(ref)}/json`),
    removeImage: (id, o = {}) => c.json("DELETE", `/images/${seg(id)}${query({ force: o.force })}`),
    pullImage: (ref, onProgress) =>
      transfer(
        ref,
        `/images/create${query({ fromImage: ref, ...(ref.includes("@") || /:[^/]+$/.test(ref) ? {} : { tag: "latest" }) })}`,
        onProgress,
      ),
    pushImage: (ref, onProgress) => transfer(ref, `/images/${seg(ref)}/push`, onProgress),
    async distributionInspect(ref) {
      try {
        const header = (await auth(ref)) ?? btoa("{}")
        const res = await c.call("GET", `/distribution/${seg(ref)}/json`, { headers: { "X-Registry-Auth": header } })
        return (await res.json()) as { Descriptor: { digest: string } }
      } catch (err) {
        throw registryFailure(ref, err)
      }
    },
    tagImage: (source, repo, tag) => c.done("POST", `/images/${seg(source)}/tag${query({ repo, tag })}`),
    saveImages: async (names) =>
      (await c.call("GET", `/images/get?${names.map((n) => `names=${encodeURIComponent(n)}`).join("&")}`)).body!,
    async loadImages(tar) {
      const res = await c.call("POST", `/images/load${query({ quiet: 1 })}`, {
        body: tar,
        headers: { "content-type": "application/x-tar" },
      })
      await progress(res.body)
    },
  } satisfies Partial<Engine>
}

function volumeAndNetworkCalls(c: Connection) {
  return {
    listVolumes: async (filters) =>
      (await c.json<{ Volumes: Volume[] | null }>("GET", `/volumes${query({ filters })}`)).Volumes ?? [],
    inspectVolume: (name) => c.json("GET", `/volumes/${seg(name)}`),
    createVolume: (name, labels, driver) =>
      c.json("POST", "/volumes/create", { Name: name, Labels: labels ?? {}, ...driver }),
    removeVolume: (name, o = {}) => c.done("DELETE", `/volumes/${seg(name)}${query({ force: o.force })}`),
    listNetworks: () => c.json("GET", "/networks"),
    removeNetwork: (id) => c.done("DELETE", `/networks/${seg(id)}`),
  } satisfies Partial<Engine>
}

function swarmCalls(c: Connection) {
  return {
    swarmInspect: () => c.json("GET", "/swarm"),
    swarmInit: (req) => c.json("POST", "/swarm/init", req),
    swarmJoin: (req) => c.done("POST", "/swarm/join", req),
    swarmLeave: (o = {}) => c.done("POST", `/swarm/leave${query({ force: o.force })}`),
    listNodes: (filters) => c.json("GET", `/nodes${query({ filters })}`),
    inspectNode: (id) => c.json("GET", `/nodes/${seg(id)}`),
    updateNode: (id, version, spec) => c.done("POST", `/nodes/${seg(id)}/update${query({ version })}`, spec),
    removeNode: (id, o = {}) => c.done("DELETE", `/nodes/${seg(id)}${query({ force: o.force })}`),
    createService: (spec) => c.json("POST", "/services/create", spec),
    listServices: (filters) => c.json("GET", `/services${query({ filters, status: true })}`),
    inspectService: (id) => c.json("GET", `/services/${seg(id)}`),
    updateService: (id, version, spec, o = {}) =>
      c.done("POST", `/services/${seg(id)}/update${query({ version, rollback: o.rollback })}`, spec),
    removeService: (id) => c.done("DELETE", `/services/${seg(id)}`),
    listTasks: (filters) => c.json("GET", `/tasks${query({ filters })}`),
    async *serviceLogs(id, o) {
      const service = await c.json<SwarmService>("GET", `/services/${seg(id)}`)
      const q = { stdout: 1, stderr: 1, timestamps: 1, details: 1, follow: o.follow ? 1 : 0, tail: o.tail }
      const res = await c.call("GET", `/services/${seg(service.ID)}/logs${query(q)}`, { signal: o.signal })
      const bytes = iterate(res.body)
      for await (const { stream, text } of lines(
        service.Spec.TaskTemplate.ContainerSpec?.TTY ? raw(bytes) : demux(bytes),
      )) {
        const { ts, line: rest } = splitTimestamp(text)
        yield { stream, ts, ...splitDetails(rest) }
      }
    },
  } satisfies Partial<Engine>
}

/**
 * The engine at DOCKER_HOST `host`, speaking `pinned` (DOCKER_API_VERSION) or a negotiated version;
 * every pull and push carries the credentials `registryAuth` finds for its reference.
 */
export function dockerEngine(
  host: string,
  pinned?: string,
  registryAuth: RegistryAuthFor = async () => undefined,
): Engine {
  const c = new Connection(host, pinned)
  return {
    ...systemCalls(c),
    ...containerCalls(c),
    ...imageCalls(c, registryAuth),
    ...volumeAndNetworkCalls(c),
    ...swarmCalls(c),
  }
}
