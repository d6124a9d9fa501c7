// The mounts of a stack as compose's model gives them: named volumes (with the compose key each comes
// from, the engine name it has, where each service mounts it), anonymous volumes, and the host paths
// (binds) the stack mounts. Read from the model `compose config` prints (lib/stacks/model.ts), never
// from the compose file itself: there every path is already interpolated, resolved and absolute.

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
  /** The host path, absolute, as compose resolved it. */
  source: string
  target: string
  read_only: boolean
  /**
   * The path lies inside the stack's own folder (`./data:/data`): it holds the stack's data, not a
   * file of the stack, so it is never versioned or carried as one of the stack's files (copy treats
   * it as any bind).
   */
  data: boolean
  /**
   * The path is one of the stack's own files (`./nginx.conf:/etc/nginx/nginx.conf:ro`), or a folder
   * holding only them: it is versioned and carried with the stack (lib/stacks/files.ts), so a copy
   * needs no `allow_binds` for it.
   */
  file?: boolean
}

export interface MountInventory {
  volumes: VolumeEntry[]
  binds: BindEntry[]
}

export interface Mount {
  type: string
  source?: string
  target: string
  read_only: boolean
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {})
const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined

/**
 * One entry of a service's `volumes:` in compose's model: v2 prints the long syntax; v1 prints the
 * short syntax resolved (`/abs/src:/dst:rw`, `name:/dst:ro`, `/anon`) or the long syntax as given,
 * its bind source made absolute.
 */
export function parseMount(entry: unknown): Mount | undefined {
  if (typeof entry === "string") {
    const parts = entry.split(":")
    if (parts.length === 1) return { type: "volume", target: parts[0]!, read_only: false }
    const [source, target, mode = ""] = parts as [string, string, string?]
    const bind = /^[./~]/.test(source)
    return { type: bind ? "bind" : "volume", source, target, read_only: mode.split(",").includes("ro") }
  }
  const e = obj(entry)
  const target = str(e.target)
  if (!target) return undefined
  return { type: str(e.type) ?? "volume", source: str(e.source), target, read_only: e.read_only === true }
}
