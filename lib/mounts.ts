// The mount inventory of a stack, read from its compose model: the named volumes (with the compose
// key each comes from, the engine name it has, where each service mounts it), anonymous volumes, and
// the host paths (binds) the stack mounts. Pure: the parsed compose file and the stack's environment in.
import { isAbsolute, join } from "node:path"
import { interpolate } from "./interpolate.ts"

export interface VolumeMount {
  service: string
  target: string
  read_only: boolean
}

export interface VolumeEntry {
  /** The key under the top-level `volumes:`; null for an anonymous volume. */
  key: string | null
  /** The engine's name of the volume for this project; null for an anonymous volume. */
  name: string | null
  external: boolean
  /** The volume has its own `name:` (kept whatever the project is called). */
  explicit_name: boolean
  anonymous: boolean
  mounts: VolumeMount[]
}

export interface BindEntry {
  service: string
  /** The host path, made absolute against the project directory when it was relative. */
  source: string
  target: string
  read_only: boolean
}

export interface MountInventory {
  volumes: VolumeEntry[]
  binds: BindEntry[]
}

export interface ProjectInfo {
  /** The compose project name (the stack name). */
  project: string
  env: Record<string, string>
  /** Where relative bind paths are resolved from. */
  projectDir: string
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {})
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined)

/** How a top-level volume is named on the engine: `project_key`, its own `name:`, or external. */
export function volumeName(key: string, config: unknown, p: Pick<ProjectInfo, "project" | "env">): Pick<VolumeEntry, "name" | "external" | "explicit_name"> {
  const c = obj(config)
  const ext = c.external
  const external = ext === true || (typeof ext === "object" && ext !== null)
  const own = str(obj(ext).name) ?? str(c.name)
  if (own !== undefined) return { name: interpolate(own, p.env), external, explicit_name: !external }
  return { name: external ? key : `${p.project}_${key}`, external, explicit_name: false }
}

interface RawMount {
  type: string
  source?: string
  target: string
  read_only: boolean
}

/** One entry of a service's `volumes:`, short ("src:dst:ro") or long ({type, source, target}) syntax. */
export function parseMount(entry: unknown, env: Record<string, string>): RawMount | undefined {
  if (typeof entry === "string") {
    const parts = interpolate(entry, env).split(":")
    if (parts.length === 1) return { type: "volume", target: parts[0]!, read_only: false }
    const [source, target, mode = ""] = parts as [string, string, string?]
    const bind = /^[./~]/.test(source)
    return { type: bind ? "bind" : "volume", source, target, read_only: mode.split(",").includes("ro") }
  }
  const e = obj(entry)
  const target = str(e.target)
  if (!target) return undefined
  const source = str(e.source)
  return { type: str(e.type) ?? "volume", source: source && interpolate(source, env), target: interpolate(target, env), read_only: e.read_only === true }
}

export function mountInventory(model: unknown, p: ProjectInfo): MountInventory {
  const declared = obj(obj(model).volumes)
  const named = new Map<string, VolumeEntry>()
  const entry = (key: string) => {
    let v = named.get(key)
    if (!v) named.set(key, (v = { key, ...volumeName(key, declared[key], p), anonymous: false, mounts: [] }))
    return v
  }
  for (const key of Object.keys(declared)) entry(key)
  const anonymous: VolumeEntry[] = []
  const binds: BindEntry[] = []
  for (const [service, config] of Object.entries(obj(obj(model).services))) {
    const list = obj(config).volumes
    for (const raw of Array.isArray(list) ? list : []) {
      const m = parseMount(raw, p.env)
      if (!m) continue
      const at = { service, target: m.target, read_only: m.read_only }
      if (m.type === "bind" && m.source)
        binds.push({ ...at, source: isAbsolute(m.source) || m.source.startsWith("~") ? m.source : join(p.projectDir, m.source) })
      else if (m.type === "volume" && m.source) entry(m.source).mounts.push(at)
      else if (m.type === "volume") anonymous.push({ key: null, name: null, external: false, explicit_name: false, anonymous: true, mounts: [at] })
    }
  }
  return { volumes: [...named.values(), ...anonymous], binds }
}
