// The service's own records of images, volumes and networks, mapped from the engine's answers.
import { STACK_LABEL } from "./containers.ts"
import type { ImageSummary, Network, Volume } from "./client.ts"

export interface ImageRecord {
  id: string
  tags: string[]
  digests: string[]
  /** ISO 8601 */
  created: string
  size: number
  /** An image without a tag. */
  dangling: boolean
  labels: Record<string, string>
}

export interface VolumeRecord {
  name: string
  driver: string
  mountpoint: string
  created: string | null
  scope: string | null
  labels: Record<string, string>
  stack: string | null
}

export interface NetworkRecord {
  id: string
  name: string
  driver: string
  scope: string
  created: string
  internal: boolean
  labels: Record<string, string>
  stack: string | null
}

const tagsOf = (i: ImageSummary) => (i.RepoTags ?? []).filter((t) => t !== "<none>:<none>")

export const imageRecord = (i: ImageSummary): ImageRecord => ({
  id: i.Id,
  tags: tagsOf(i),
  digests: (i.RepoDigests ?? []).filter((d) => d !== "<none>@<none>"),
  created: new Date(i.Created * 1000).toISOString(),
  size: i.Size,
  dangling: tagsOf(i).length === 0,
  labels: i.Labels ?? {},
})

export const volumeRecord = (v: Volume): VolumeRecord => ({
  name: v.Name,
  driver: v.Driver,
  mountpoint: v.Mountpoint,
  created: v.CreatedAt ?? null,
  scope: v.Scope ?? null,
  labels: v.Labels ?? {},
  stack: v.Labels?.[STACK_LABEL] ?? null,
})

export const networkRecord = (n: Network): NetworkRecord => ({
  id: n.Id,
  name: n.Name,
  driver: n.Driver,
  scope: n.Scope,
  created: n.Created,
  internal: n.Internal ?? false,
  labels: n.Labels ?? {},
  stack: n.Labels?.[STACK_LABEL] ?? null,
})
