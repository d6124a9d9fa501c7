// Records as the UI uses them, read from the API's answers. Container, image, volume and network
// records may carry the engine's own field names (Id, Names, State) or the service's (id, name,
// state); both are read.
const PROJECT = "com.docker.compose.project"
const SERVICE = "com.docker.compose.service"

export interface Container {
  id: string
  name: string
  image: string
  state: string
  status: string
  ports: string[]
  stack: string
  service: string
  imageId: string
  mounts: string[]
  networks: string[]
}

const first = (o: any, ...keys: string[]) => keys.map((k) => o?.[k]).find((v) => v !== undefined && v !== null)

export function portText(p: any): string {
  if (typeof p === "string") return p
  const inner = `${first(p, "PrivatePort", "private_port", "container_port", "private") ?? "?"}/${first(p, "Type", "type", "protocol") ?? "tcp"}`
  const pub = first(p, "PublicPort", "public_port", "host_port", "public")
  return pub ? `${first(p, "IP", "ip") && !["0.0.0.0", "::"].includes(first(p, "IP", "ip")) ? first(p, "IP", "ip") + ":" : ""}${pub}→${inner}` : inner
}

export function container(c: any): Container {
  const labels = first(c, "Labels", "labels") ?? {}
  const names: string[] = first(c, "Names", "names") ?? []
  const ports = (first(c, "Ports", "ports") ?? []).map(portText) as string[]
  const networks = first(c, "NetworkSettings", "network_settings")?.Networks ?? first(c, "networks") ?? {}
  return {
    id: first(c, "Id", "id", "ID") ?? "",
    name: String(first(c, "name", "Name") ?? names[0] ?? "").replace(/^\//, ""),
    image: first(c, "Image", "image") ?? "",
    imageId: first(c, "ImageID", "image_id") ?? "",
    state: String(first(c, "State", "state") ?? "unknown"),
    status: first(c, "Status", "status") ?? "",
    ports: [...new Set(ports)],
    stack: first(c, "stack", "project") ?? labels[PROJECT] ?? "",
    service: first(c, "service") ?? labels[SERVICE] ?? "",
    mounts: (first(c, "Mounts", "mounts") ?? []).map((m: any) => first(m, "Name", "name") ?? "").filter(Boolean),
    networks: Array.isArray(networks) ? networks : Object.keys(networks),
  }
}

export function containersOf(data: any): Container[] {
  const list = Array.isArray(data) ? data : (first(data, "containers", "Containers") ?? [])
  return list.map(container)
}

export function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1
  return out
}

export interface Image {
  id: string
  tags: string[]
  size: number
  created: number | string
  scan: any
  scanState: string | null
  update: any
}

export function image(i: any): Image {
  const tags = (first(i, "RepoTags", "repo_tags", "tags") ?? []).filter((t: string) => t !== "<none>:<none>")
  return {
    id: first(i, "Id", "id") ?? "",
    tags,
    size: first(i, "Size", "size") ?? 0,
    created: first(i, "Created", "created") ?? "",
    scan: first(i, "scan", "scan_summary", "vulnerabilities"),
    scanState: first(i, "scan_state") ?? null,
    update: first(i, "update_available", "update"),
  }
}

export const shortId = (id: string) => id.replace(/^sha256:/, "").slice(0, 12)

export interface Volume {
  name: string
  driver: string
  created: string
  labels: Record<string, string>
}

export function volume(v: any): Volume {
  return { name: first(v, "Name", "name") ?? "", driver: first(v, "Driver", "driver") ?? "", created: first(v, "CreatedAt", "created_at", "created") ?? "", labels: first(v, "Labels", "labels") ?? {} }
}

export const listOf = (data: any, key: string): any[] => (Array.isArray(data) ? data : (first(data, key, key[0]!.toUpperCase() + key.slice(1)) ?? []))

export interface Network {
  id: string
  name: string
  driver: string
  scope: string
  containers: number
}

export function network(n: any): Network {
  const cs = first(n, "Containers", "containers")
  return {
    id: first(n, "Id", "id") ?? "",
    name: first(n, "Name", "name") ?? "",
    driver: first(n, "Driver", "driver") ?? "",
    scope: first(n, "Scope", "scope") ?? "",
    containers: cs ? (Array.isArray(cs) ? cs.length : typeof cs === "number" ? cs : Object.keys(cs).length) : 0,
  }
}

export const BUILTIN_NETWORKS = new Set(["bridge", "host", "none"])

/** What a prune of each kind would remove, computed from the lists. */
export function pruneSummary(containers: Container[], images: Image[], volumes: Volume[], networks: Network[]) {
  const stopped = containers.filter((c) => ["exited", "created", "dead"].includes(c.state))
  const usedImages = new Set(containers.flatMap((c) => [c.imageId, c.image]))
  const usedVolumes = new Set(containers.flatMap((c) => c.mounts))
  const usedNetworks = new Set(containers.flatMap((c) => c.networks))
  return {
    containers: stopped.map((c) => c.name || shortId(c.id)),
    images: images.filter((i) => !usedImages.has(i.id) && !i.tags.some((t) => usedImages.has(t))).map((i) => (i.tags.length ? i.tags.join(", ") : `${shortId(i.id)} (dangling)`)),
    volumes: volumes.filter((v) => !usedVolumes.has(v.name)).map((v) => v.name),
    networks: networks.filter((n) => !BUILTIN_NETWORKS.has(n.name) && !usedNetworks.has(n.name) && !n.containers).map((n) => n.name),
  }
}

export interface Stack {
  name: string
  state: string
  services: { name: string; containers: Container[] }[]
  envPending: boolean
  /** The stack's files changed and not applied yet. */
  filesPending: boolean
  /** The stack's files besides its compose file (relative paths). */
  files: string[]
  currentVersion: number | string | null
  external: boolean
}

export function stack(s: any): Stack {
  const services = first(s, "services") ?? []
  const list = Array.isArray(services) ? services : Object.entries(services).map(([name, v]: [string, any]) => ({ name, ...(Array.isArray(v) ? { containers: v } : v) }))
  return {
    name: first(s, "name") ?? "",
    state: String(first(s, "state", "status") ?? "unknown"),
    services: list.map((x: any) => (typeof x === "string" ? { name: x, containers: [] } : { name: first(x, "name", "service") ?? "", containers: (first(x, "containers") ?? []).map(container) })),
    envPending: Boolean(first(s, "env_pending")),
    filesPending: Boolean(first(s, "files_pending")),
    files: Array.isArray(first(s, "files")) ? first(s, "files").map(String) : [],
    currentVersion: first(s, "current_version") ?? null,
    external: Boolean(first(s, "external", "unmanaged")) || first(s, "managed") === false,
  }
}

export interface EnvVar {
  key: string
  value: string | null
  secret: boolean
}
