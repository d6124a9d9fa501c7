// A compose file for containers started with `docker run`, from what the engine says of them
// (container and image inspect). Pure: the adoption (lib/verbs/adopt-containers.ts) asks the
// engine and checks the file with compose's own model before anything changes.
//
// Each container becomes one service named after it. Only what differs from the image's own config
// is written (command, entrypoint, environment, working dir, user, healthcheck, stop signal, labels),
// and only what differs from the engine's defaults of a `docker run`. Named volumes become external
// volumes (the data stays where it is), anonymous ones too, by their engine name; binds stay binds;
// user networks become external networks. Environment values whose keys look secret go to the
// stack's environment and are interpolated (`${KEY}`); the others are written into the file, `$`
// doubled so that compose takes them literally. What compose has no key for is listed, not dropped
// silently.
import type { EnvVar } from "./env.ts"
import { yamlLibrary } from "./yaml.ts"

type Obj = Record<string, any>

/** What the engine answers for GET /containers/{id}/json, as far as an adoption reads it. */
export interface InspectedContainer {
  Id: string
  Name: string
  Image: string
  State?: { Running?: boolean }
  Config: Obj
  HostConfig: Obj
  Mounts: Obj[]
  NetworkSettings?: Obj
}

/** Something a container has that the generated file does not carry. */
export interface Unexpressed {
  service: string
  option: string
  detail: string
}

export interface Generated {
  /** The compose file, YAML. */
  compose: string
  /** The stack's environment: the secret-looking values the file interpolates. */
  env: EnvVar[]
  /** Which container each service replaces. */
  services: { service: string; container: string }[]
  unexpressed: Unexpressed[]
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)
const nonEmpty = (v: unknown) =>
  Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null && v !== "" && v !== 0 && v !== false
const ANONYMOUS = /^[0-9a-f]{64}$/

/** The service name of a container: its name without the leading "/". */
export const serviceName = (c: InspectedContainer) => c.Name.replace(/^\//, "")

/** "5s", "1500ms": a duration in nanoseconds as compose reads it. */
export function duration(ns: number): string {
  const ms = ns / 1e6
  return Number.isInteger(ms / 1000) ? `${ms / 1000}s` : `${ms}ms`
}

/** `docker run -p` answers as compose's short port syntax: `[ip:]host:container/proto`. */
export function ports(bindings: Obj | null | undefined): string[] {
  const out: string[] = []
  for (const [spec, list] of Object.entries(bindings ?? {}))
    for (const b of (list as Obj[] | null) ?? []) {
      const ip = b.HostIp ? `${b.HostIp.includes(":") ? `[${b.HostIp}]` : b.HostIp}:` : ""
      out.push(b.HostPort ? `${ip}${b.HostPort}:${spec}` : ip ? `${ip}:${spec}` : spec)
    }
  return out
}

/** The healthcheck compose writes for one the image does not have. */
function healthcheck(h: Obj): Obj {
  if (h.Test?.[0] === "NONE") return { disable: true }
  const out: Obj = { test: h.Test }
  for (const [key, from] of [
    ["interval", "Interval"],
    ["timeout", "Timeout"],
    ["start_period", "StartPeriod"],
    ["start_interval", "StartInterval"],
  ] as const)
    if (h[from]) out[key] = duration(h[from])
  if (h.Retries) out.retries = h.Retries
  return out
}

interface Context {
  image: Obj
  /** Container id → service name, for the containers adopted together. */
  services: Map<string, string>
  secret: (key: string) => boolean
  env: Map<string, string>
  volumes: Obj
  networks: Obj
  unexpressed: Unexpressed[]
}

/** A key of the stack's environment that holds this value or none yet: KEY, else SERVICE_KEY, else SERVICE_KEY_2, ... */
function envKey(ctx: Context, service: string, key: string, value: string): string {
  const prefixed = `${service.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}_${key}`
  for (let n = 0; ; n++) {
    const k = n === 0 ? key : n === 1 ? prefixed : `${prefixed}_${n}`
    const held = ctx.env.get(k)
    if (held === undefined || held === value) return k
  }
}

function environment(ctx: Context, service: string, env: string[], imageEnv: string[]): Obj | undefined {
  const out: Obj = {}
  for (const entry of env) {
    if (imageEnv.includes(entry)) continue
    const at = entry.indexOf("=")
    const [key, value] = at < 0 ? [entry, ""] : [entry.slice(0, at), entry.slice(at + 1)]
    if (ctx.secret(key)) {
      const k = envKey(ctx, service, key, value)
      ctx.env.set(k, value)
      out[key] = `\${${k}}`
    } else out[key] = value.replaceAll("$", () => "$$")
  }
  return Object.keys(out).length ? out : undefined
}

function mounts(ctx: Context, service: string, c: InspectedContainer): { volumes?: Obj[]; tmpfs?: string[] } {
  const volumes: Obj[] = []
  for (const m of c.Mounts) {
    const read_only = m.RW === false ? { read_only: true } : {}
    if (m.Type === "bind") volumes.push({ type: "bind", source: m.Source, target: m.Destination, ...read_only })
    else if (m.Type === "volume" && m.Name) {
      const key = ANONYMOUS.test(m.Name) ? `${service}_${m.Name.slice(0, 12)}` : m.Name
      ctx.volumes[key] = key === m.Name ? { external: true } : { external: true, name: m.Name }
      volumes.push({ type: "volume", source: key, target: m.Destination, ...read_only })
    } else if (m.Type === "tmpfs") volumes.push({ type: "tmpfs", target: m.Destination })
    else ctx.unexpressed.push({ service, option: "mount", detail: `a ${m.Type} mount at ${m.Destination}` })
  }
  const tmpfs = Object.entries((c.HostConfig.Tmpfs as Obj | null) ?? {}).map(([path, opts]) =>
    opts ? `${path}:${opts}` : path,
  )
  return { ...(volumes.length ? { volumes } : {}), ...(tmpfs.length ? { tmpfs } : {}) }
}

const DEFAULT_NETWORKS = new Set(["default", "bridge"])

function networking(ctx: Context, service: string, c: InspectedContainer): Obj {
  const mode: string = c.HostConfig.NetworkMode ?? "default"
  if (mode.startsWith("container:")) {
    const id = mode.slice("container:".length)
    const other = [...ctx.services].find(([cid]) => cid === id || cid.startsWith(id))
    return { network_mode: other ? `service:${other[1]}` : mode }
  }
  if (mode === "host" || mode === "none") return { network_mode: mode }
  const own = new Set([c.Id.slice(0, 12), c.Config.Hostname, serviceName(c)])
  const networks: Obj = {}
  for (const [name, n] of Object.entries((c.NetworkSettings?.Networks as Obj | undefined) ?? {})) {
    if (DEFAULT_NETWORKS.has(name)) continue
    ctx.networks[name] = { external: true }
    const aliases = ((n as Obj).Aliases ?? []).filter((a: string) => !own.has(a))
    networks[name] = aliases.length ? { aliases } : null
  }
  const onDefault = DEFAULT_NETWORKS.has(mode) || Object.hasOwn(c.NetworkSettings?.Networks ?? {}, "bridge")
  if (onDefault && Object.keys(networks).length)
    ctx.unexpressed.push({
      service,
      option: "network",
      detail: "attached to the default bridge as well as to user networks",
    })
  if (!Object.keys(networks).length) return { network_mode: "bridge" }
  return { networks }
}

/** The options of HostConfig that map one to one onto a compose key, with the engine's default of a `docker run`. */
const HOST_KEYS: [string, string, unknown][] = [
  ["CapAdd", "cap_add", null],
  ["CapDrop", "cap_drop", null],
  ["Privileged", "privileged", false],
  ["ReadonlyRootfs", "read_only", false],
  ["Init", "init", null],
  ["ExtraHosts", "extra_hosts", null],
  ["Dns", "dns", null],
  ["DnsSearch", "dns_search", null],
  ["DnsOptions", "dns_opt", null],
  ["GroupAdd", "group_add", null],
  ["SecurityOpt", "security_opt", null],
  ["Sysctls", "sysctls", null],
  ["Memory", "mem_limit", 0],
  ["MemoryReservation", "mem_reservation", 0],
  ["CpuShares", "cpu_shares", 0],
  ["CpusetCpus", "cpuset", ""],
  ["PidsLimit", "pids_limit", null],
  ["OomScoreAdj", "oom_score_adj", 0],
  ["Runtime", "runtime", "runc"],
  ["CgroupParent", "cgroup_parent", ""],
]

/** HostConfig options a `docker run` can set that compose has no key for (or that do not survive a move into a stack). */
const NO_KEY: [string, string][] = [
  ["Links", "--link: compose links only services of the same project"],
  ["PublishAllPorts", "--publish-all"],
  ["VolumesFrom", "--volumes-from"],
  ["AutoRemove", "--rm"],
  ["DeviceRequests", "--gpus"],
  ["DeviceCgroupRules", "--device-cgroup-rule"],
]

function hostOptions(ctx: Context, service: string, c: InspectedContainer): Obj {
  const h = c.HostConfig
  const out: Obj = {}
  for (const [from, key, dflt] of HOST_KEYS) if (nonEmpty(h[from]) && !same(h[from], dflt)) out[key] = h[from]
  if (h.NanoCpus) out.cpus = h.NanoCpus / 1e9
  if (h.MemorySwap && h.MemorySwap !== 2 * h.Memory) out.memswap_limit = h.MemorySwap
  if (h.ShmSize && h.ShmSize !== 64 * 1024 * 1024) out.shm_size = h.ShmSize
  if (h.PidMode) out.pid = h.PidMode
  if (h.IpcMode && !["private", "shareable", ""].includes(h.IpcMode)) out.ipc = h.IpcMode
  if (h.UsernsMode) out.userns_mode = h.UsernsMode
  const restart: Obj = h.RestartPolicy ?? {}
  if (restart.Name && restart.Name !== "no")
    out.restart =
      restart.Name === "on-failure" && restart.MaximumRetryCount
        ? `on-failure:${restart.MaximumRetryCount}`
        : restart.Name
  const devices = ((h.Devices as Obj[] | null) ?? []).map(
    (d) =>
      `${d.PathOnHost}:${d.PathInContainer}${d.CgroupPermissions && d.CgroupPermissions !== "rwm" ? `:${d.CgroupPermissions}` : ""}`,
  )
  if (devices.length) out.devices = devices
  const ulimits = Object.fromEntries(
    ((h.Ulimits as Obj[] | null) ?? []).map((u) => [u.Name, { soft: u.Soft, hard: u.Hard }]),
  )
  if (Object.keys(ulimits).length) out.ulimits = ulimits
  const log: Obj = h.LogConfig ?? {}
  if (log.Type && (log.Type !== "json-file" || Object.keys(log.Config ?? {}).length))
    out.logging = { driver: log.Type, ...(Object.keys(log.Config ?? {}).length ? { options: log.Config } : {}) }
  for (const [from, what] of NO_KEY)
    if (nonEmpty(h[from]))
      ctx.unexpressed.push({ service, option: from, detail: `${what}: ${JSON.stringify(h[from])}` })
  return out
}

function configOptions(ctx: Context, service: string, c: InspectedContainer): Obj {
  const cfg = c.Config
  const img: Obj = ctx.image.Config ?? {}
  const out: Obj = {}
  const entrypointChanged = !same(cfg.Entrypoint, img.Entrypoint)
  if (entrypointChanged) out.entrypoint = cfg.Entrypoint ?? []
  // Compose clears the image's command when it sets an entrypoint, as `docker run --entrypoint` does.
  if ((entrypointChanged && nonEmpty(cfg.Cmd)) || (!entrypointChanged && !same(cfg.Cmd, img.Cmd)))
    out.command = cfg.Cmd ?? []
  const env = environment(ctx, service, cfg.Env ?? [], img.Env ?? [])
  if (env) out.environment = env
  if (cfg.WorkingDir && cfg.WorkingDir !== img.WorkingDir) out.working_dir = cfg.WorkingDir
  if (cfg.User && cfg.User !== img.User) out.user = cfg.User
  // A container in another's network namespace has that one's hostname, and compose refuses to set one.
  const ownNamespace = !String(c.HostConfig.NetworkMode ?? "").startsWith("container:")
  if (ownNamespace && cfg.Hostname && cfg.Hostname !== c.Id.slice(0, 12)) out.hostname = cfg.Hostname
  if (cfg.Domainname) out.domainname = cfg.Domainname
  if (cfg.StopSignal && cfg.StopSignal !== img.StopSignal) out.stop_signal = cfg.StopSignal
  if (cfg.StopTimeout !== undefined && cfg.StopTimeout !== null) out.stop_grace_period = `${cfg.StopTimeout}s`
  if (cfg.Tty) out.tty = true
  if (cfg.OpenStdin) out.stdin_open = true
  if (cfg.Healthcheck && !same(cfg.Healthcheck, img.Healthcheck)) out.healthcheck = healthcheck(cfg.Healthcheck)
  const imageLabels: Obj = img.Labels ?? {}
  const labels = Object.fromEntries(
    Object.entries((cfg.Labels as Obj | null) ?? {}).filter(
      ([k, v]) => !k.startsWith("com.docker.compose.") && imageLabels[k] !== v,
    ),
  )
  if (Object.keys(labels).length) out.labels = labels
  const published = new Set(Object.keys(c.HostConfig.PortBindings ?? {}))
  const expose = Object.keys(cfg.ExposedPorts ?? {}).filter(
    (p) => !published.has(p) && !Object.hasOwn(img.ExposedPorts ?? {}, p),
  )
  if (expose.length) out.expose = expose
  return out
}

/** One service of the generated file. */
function service(ctx: Context, name: string, c: InspectedContainer): Obj {
  const p = ports(c.HostConfig.PortBindings)
  return {
    image: c.Config.Image,
    ...configOptions(ctx, name, c),
    ...(p.length ? { ports: p } : {}),
    ...mounts(ctx, name, c),
    ...networking(ctx, name, c),
    ...hostOptions(ctx, name, c),
  }
}

/**
 * The compose file for `containers` (each with its image's inspect answer in `images`, by image id).
 * `secret` says which environment keys look secret.
 */
export function fromContainers(
  containers: InspectedContainer[],
  images: Record<string, Obj>,
  secret: (key: string) => boolean,
): Generated {
  const ctx: Context = {
    image: {},
    services: new Map(containers.map((c) => [c.Id, serviceName(c)])),
    secret,
    env: new Map(),
    volumes: {},
    networks: {},
    unexpressed: [],
  }
  const services: Obj = {}
  for (const c of containers) {
    ctx.image = images[c.Image] ?? {}
    services[serviceName(c)] = service(ctx, serviceName(c), c)
  }
  const doc: Obj = { services }
  if (Object.keys(ctx.volumes).length) doc.volumes = ctx.volumes
  if (Object.keys(ctx.networks).length) doc.networks = ctx.networks
  return {
    // A value shared by several services (from one image) is written out each time, never as an alias:
    // the service's parser refuses a file whose aliases are used too often (lib/stacks/yaml.ts).
    compose: yamlLibrary().stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false }),
    env: [...ctx.env].map(([key, value]) => ({ key, value, secret: true })),
    services: containers.map((c) => ({ service: serviceName(c), container: c.Id })),
    unexpressed: ctx.unexpressed,
  }
}
