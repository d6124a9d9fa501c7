// Records as the UI shows them, made from the API's answers. The answers' types are the routes' own
// (the response schemas in lib/*/schemas.ts), imported as types only, so none of them reaches the bundle.
import type * as v from "valibot"
import type {
  containerDetailSchema,
  networkSchema,
  portSchema,
  volumeSchema,
  Container as ContainerAnswer,
  DashboardAnswer,
  EngineEvent,
} from "#lib/engine/schemas.ts"
import type { ImageWithStatus, scanResultSchema, scanSummarySchema } from "#lib/images/schemas.ts"
import type { Severity } from "#lib/images/scanner.ts"
import type {
  adoptResultSchema,
  EnvEntry,
  fileEntrySchema,
  Stack as StackAnswer,
  StackVersionEntry,
} from "#lib/stacks/schemas.ts"
import type { planSchema } from "#lib/copy/schemas.ts"
import type { stackUpdatedSchema, UpdateOutcomeAnswer } from "#lib/updates/schemas.ts"
import type checkUpdateRoute from "../handlers/api/stacks/[name]/check-update.post.ts"
import type policyRoute from "../handlers/api/stacks/[name]/policy.get.ts"
import type updatesRoute from "../handlers/api/stacks/[name]/updates.get.ts"
import type composeRoute from "../handlers/api/stacks/[name]/compose.get.ts"
import type adoptContainersRoute from "../handlers/api/containers/adopt.post.ts"
import type stackListRoute from "../handlers/api/stacks/index.get.ts"
import type { allStatsSchema } from "#lib/stats/schemas.ts"

export type { ContainerAnswer, DashboardAnswer, EngineEvent, ImageWithStatus, StackAnswer }
export type ContainerDetail = v.InferOutput<typeof containerDetailSchema>
export type Volume = v.InferOutput<typeof volumeSchema>
export type Network = v.InferOutput<typeof networkSchema>
export type EnvVar = EnvEntry
export type ScanSummary = v.InferOutput<typeof scanSummarySchema>
export type ScanResult = v.InferOutput<typeof scanResultSchema>
export type { Severity }
export type FileEntry = v.InferOutput<typeof fileEntrySchema>
export type StackVersion = StackVersionEntry
export type StackUpdated = v.InferOutput<typeof stackUpdatedSchema>
export type UpdateOutcome = UpdateOutcomeAnswer
export type UpdateCheck = v.InferOutput<typeof checkUpdateRoute.response>
export type Policy = v.InferOutput<typeof policyRoute.response>
export type UpdateHistory = v.InferOutput<typeof updatesRoute.response>
export type ComposeFile = v.InferOutput<typeof composeRoute.response>
export type CopyPlan = v.InferOutput<typeof planSchema>
export type AdoptPlan = v.InferOutput<typeof adoptResultSchema>
export type ContainersAdoptPlan = v.InferOutput<(typeof adoptContainersRoute.response)[200]>
export type StackListAnswer = v.InferOutput<typeof stackListRoute.response>[number]
export type AllStats = v.InferOutput<typeof allStatsSchema>

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
  /** Named volumes it mounts and networks it is on: known from its detail only. */
  mounts: string[]
  networks: string[]
}

export function portText(p: v.InferOutput<typeof portSchema>): string {
  const inner = `${p.private_port}/${p.type}`
  if (!p.public_port) return inner
  return `${p.ip && !["0.0.0.0", "::"].includes(p.ip) ? `${p.ip}:` : ""}${p.public_port}→${inner}`
}

export function container(c: ContainerAnswer | ContainerDetail): Container {
  return {
    id: c.id,
    name: c.name,
    image: c.image,
    imageId: c.image_id,
    state: c.state,
    status: c.status,
    ports: [...new Set(c.ports.map(portText))],
    stack: c.stack ?? "",
    service: c.service ?? "",
    mounts: "mounts" in c ? c.mounts.flatMap((m) => (m.name ? [m.name] : [])) : [],
    networks: "networks" in c ? c.networks : [],
  }
}

export function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1
  return out
}

export type Image = ImageWithStatus

export const shortId = (id: string) => id.replace(/^sha256:/, "").slice(0, 12)

export const BUILTIN_NETWORKS = new Set(["bridge", "host", "none"])

/** What a prune of each kind would remove, computed from the lists. */
export function pruneSummary(containers: Container[], images: Image[], volumes: Volume[], networks: Network[]) {
  const stopped = containers.filter((c) => ["exited", "created", "dead"].includes(c.state))
  const usedImages = new Set(containers.flatMap((c) => [c.imageId, c.image]))
  const usedVolumes = new Set(containers.flatMap((c) => c.mounts))
  const usedNetworks = new Set(containers.flatMap((c) => c.networks))
  return {
    containers: stopped.map((c) => c.name || shortId(c.id)),
    images: images
      .filter((i) => !usedImages.has(i.id) && !i.tags.some((t) => usedImages.has(t)))
      .map((i) => (i.tags.length ? i.tags.join(", ") : `${shortId(i.id)} (dangling)`)),
    volumes: volumes.filter((v) => !usedVolumes.has(v.name)).map((v) => v.name),
    networks: networks.filter((n) => !BUILTIN_NETWORKS.has(n.name) && !usedNetworks.has(n.name)).map((n) => n.name),
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
  currentVersion: number | null
  external: boolean
  /** What runs it: compose on this engine, or the swarm. */
  orchestrator: StackAnswer["orchestrator"]
  /** The actions its orchestrator has a meaning for (start, stop, restart, pause, unpause). */
  actions: StackAnswer["capabilities"]["actions"]
  /** Where its containers run: this engine (each service's containers, their usage), or the orchestrator's nodes (its services' tasks). */
  runsOn: StackAnswer["capabilities"]["runs_on"]
  /** What the start recovered of an operation cut short by a crash. */
  recovered?: { time: string; message: string }
}

export function stack(s: StackAnswer): Stack {
  return {
    name: s.name,
    state: s.status,
    services: s.services.map((x) => ({ name: x.name, containers: x.containers.map(container) })),
    envPending: s.env_pending,
    filesPending: s.files_pending,
    files: s.files,
    currentVersion: s.current_version,
    external: !s.managed,
    orchestrator: s.orchestrator,
    actions: s.capabilities.actions,
    runsOn: s.capabilities.runs_on,
    ...(s.recovered ? { recovered: s.recovered } : {}),
  }
}

/** At a glance: running (all of it, none unhealthy), stopped (nothing running), else degraded; the dashboard's rule (lib/overview). */
export type Health = "running" | "degraded" | "stopped"

const troubled = (c: Container) => c.state === "restarting" || c.state === "dead" || /\(unhealthy\)/.test(c.status)

export function stackHealth(s: Stack): Health {
  if (s.state === "stopped") return "stopped"
  if (s.state === "running" && !s.services.some((x) => x.containers.some(troubled))) return "running"
  return "degraded"
}

/** A row of the stack list: the stack, its health, its resource use now and over the last hour, its images' pending updates and CVEs, its git source. */
export interface StackRow extends Stack {
  health: Health
  cpu: number | null
  memory: number | null
  cpuHistory: (number | null)[]
  memHistory: (number | null)[]
  /** Its images with a newer one at their registry. */
  updates: string[]
  /** Critical and high findings of its images' latest scans (each image once). */
  cves: { critical: number; high: number }
  git: StackListAnswer["git"]
}

export function stackRows(
  list: StackListAnswer[],
  stats: Pick<AllStats, "stacks"> | null,
  images: Image[],
): StackRow[] {
  const usage = new Map((stats?.stacks ?? []).map((u) => [u.name, u]))
  return list.map((answer) => {
    const s = stack(answer)
    const containers = s.services.flatMap((x) => x.containers)
    const used = images.filter((i) => containers.some((c) => c.imageId === i.id || i.tags.includes(c.image)))
    const u = usage.get(s.name)
    const history = (col: string) => (Array.isArray(u?.history?.[col]) ? (u.history[col] as (number | null)[]) : [])
    return {
      ...s,
      health: stackHealth(s),
      cpu: u?.cpu_percent ?? null,
      memory: u?.memory_bytes ?? null,
      cpuHistory: history("cpu_percent"),
      memHistory: history("memory_bytes"),
      updates: used.filter((i) => i.update_available).map((i) => i.tags[0] ?? shortId(i.id)),
      cves: {
        critical: used.reduce((n, i) => n + (i.scan?.counts.critical ?? 0), 0),
        high: used.reduce((n, i) => n + (i.scan?.counts.high ?? 0), 0),
      },
      git: answer.git,
    }
  })
}
