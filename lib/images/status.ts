// What GET /api/images adds to each image: the summary of its latest scan (counts by severity, when,
// by which scanner), whether a scan is waiting or running, and the update checks made of it.
import { summaryOf, type ScanQueue, type ScanState, type ScanSummary } from "./scan-queue.ts"
import type { UpdateRecord, ImageUpdates } from "./update-checks.ts"

export interface ImageStatus {
  scan: ScanSummary | null
  scan_state: ScanState | null
  /** true when a registry serves a newer version of one of its tags; null when never told. */
  update_available: boolean | null
  update_checks: UpdateRecord[]
}

/**
 * The images with their status. A scan's state is read before the stored results, so a scan that
 * ends while they are read shows as still running (and a later read shows its result), never as
 * neither running nor scanned.
 */
export async function withImageStatus<T extends { id: string }>(
  ctx: { scans: Pick<ScanQueue, "state" | "results">; imageUpdates: Pick<ImageUpdates, "records"> },
  images: T[],
): Promise<(T & ImageStatus)[]> {
  const states = images.map((image) => ctx.scans.state(image.id) ?? null)
  const [scans, updates] = await Promise.all([ctx.scans.results(), ctx.imageUpdates.records()])
  return images.map((image, i) => {
    const scan = scans.get(image.id)
    const checks = Object.values(updates.images).filter((u) => u.image === image.id)
    const told = checks.filter((c) => c.update_available !== null)
    return {
      ...image,
      scan: scan ? summaryOf(scan) : null,
      scan_state: states[i]!,
      update_available: told.length ? told.some((c) => c.update_available) : null,
      update_checks: checks,
    }
  })
}
