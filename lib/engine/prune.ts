// Pruning: what the engine removed and the space it reclaimed, in the service's own shape.
import type { Engine, PruneKind } from "./client.ts"
import { notFound } from "../errors/errors.ts"

export const PRUNE_KINDS: readonly PruneKind[] = ["containers", "images", "volumes", "networks"]

export interface PruneResult {
  kind: PruneKind
  /** Ids of removed containers and images; names of removed networks and volumes, as the engine reports them. */
  removed: string[]
  /** Image references that lost their tag (images only). */
  untagged: string[]
  space_reclaimed: number
}

type EnginePrune = {
  ContainersDeleted?: string[] | null
  ImagesDeleted?: { Untagged?: string; Deleted?: string }[] | null
  VolumesDeleted?: string[] | null
  NetworksDeleted?: string[] | null
  SpaceReclaimed?: number
}

export function pruneKind(kind: string): PruneKind {
  if (!(PRUNE_KINDS as string[]).includes(kind))
    throw notFound(`nothing to prune called "${kind}"; one of ${PRUNE_KINDS.join(", ")}`)
  return kind as PruneKind
}

/** Containers: stopped ones. Images: dangling and unused. Volumes: unused local ones. Networks: unused ones. */
export async function prune(engine: Engine, kind: PruneKind): Promise<PruneResult> {
  const r = (await engine.prune(kind)) as EnginePrune
  const images = r.ImagesDeleted ?? []
  return {
    kind,
    removed: [
      ...(r.ContainersDeleted ?? []),
      ...images.flatMap((i) => i.Deleted ?? []),
      ...(r.VolumesDeleted ?? []),
      ...(r.NetworksDeleted ?? []),
    ],
    untagged: images.flatMap((i) => i.Untagged ?? []),
    space_reclaimed: r.SpaceReclaimed ?? 0,
  }
}
