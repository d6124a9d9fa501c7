// Records as the UI shows them, made from the API's answers. The answers' types are the routes' own
// (the response schemas in lib/*/schemas.ts), imported as types only, so none of them reaches the bundle.
import type * as v from "valibot"
import type { containerDetailSchema, networkSchema, portSchema, volumeSchema, Container as ContainerAnswer, DashboardAnswer, EngineEvent } from "#lib/engine/schemas.ts"
import type { ImageWithStatus, scanResultSchema, scanSummarySchema } from "#lib/images/schemas.ts"
import type { Severity } from "#lib/images/scanner.ts"
import type { adoptResultSchema, EnvEntry, fileEntrySchema, Stack as StackAnswer, StackVersionEntry } from "#lib/stacks/schemas.ts"
import type { planSchema } from "#lib/copy/schemas.ts"
import type { stackUpdatedSchema, UpdateOutcomeAnswer } from "#lib/updates/schemas.ts"
import type { response as checkUpdateResponse } from "../handlers/api/stacks/[name]/check-update.post.ts"
import type { response as policyResponse } from "../handlers/api/stacks/[name]/policy.get.ts"
import type { response as updatesResponse } from "../handlers/api/stacks/[name]/updates.get.ts"
import type { response as composeResponse } from "../handlers/api/stacks/[name]/compose.get.ts"
import type { response as adoptContainersResponse } from "../handlers/api/containers/adopt.post.ts"

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
export type UpdateCheck = v.InferOutput<typeof checkUpdateResponse>
export type Policy = v.InferOutput<typeof policyResponse>
export type UpdateHistory = v.InferOutput<typeof updatesResponse>
export type ComposeFile = v.InferOutput<typeof composeResponse>
export type CopyPlan = v.InferOutput<typeof planSchema>
export type AdoptPlan = v.InferOutput<typeof adoptResultSchema>
export type ContainersAdoptPlan = v.InferOutput<(typeof adoptContainersResponse)[200]>

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
    images: images.filter((i) => !usedImages.has(i.id) && !i.tags.some((t) => usedImages.has(t))).map((i) => (i.tags.length ? i.tags.join(", ") : `${shortId(i.id)} (dangling)`)),
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
  }
}
