// What GET /api/dashboard answers: the engine's summary and whether everything is fine, every part
// asked at once. The container and image lists are read once and shared by the summary and the
// health; the engine's version and disk use are reused (engine/dashboard.ts), the update checks, the
// scans' summaries and the stats are what their rooms keep in memory. A part other than the engine's
// own lists that fails is named in `errors` and answered as empty.
import type { ContainerSummary, Engine, EngineVersion, ImageSummary } from "../engine/client.ts"
import { STACK_LABEL } from "../engine/containers.ts"
import { dashboard } from "../engine/dashboard.ts"
import type { DiskUsageCache } from "../engine/disk-usage.ts"
import type { Reused } from "../engine/reused.ts"
import type { NodeRegistry } from "../cluster/nodes.ts"
import type { ScanQueue } from "../images/scan-queue.ts"
import type { ImageUpdates } from "../images/update-checks.ts"
import { redactorFor } from "../stacks/env.ts"
import { stackHealths } from "../stacks/state.ts"
import type { Stacks } from "../stacks/store.ts"
import { hostUse, type StatsSampler } from "../stats/sampler.ts"
import { listSwarmServices, STACK_NAMESPACE } from "../swarm/services.ts"
import { readSwarm } from "../swarm/state.ts"
import type { UpdateRecords } from "../updates/records.ts"
import type { BackupVerbs } from "../verbs/backup-verbs.ts"
import type { Health, Overview } from "./schemas.ts"

/** What the overview reads: the handler hands in the context. */
export interface OverviewParts {
  engine: Engine
  diskUsage: DiskUsageCache
  engineVersion: Reused<EngineVersion>
  stacks: Stacks
  updateRecords: Pick<UpdateRecords, "last">
  imageUpdates: Pick<ImageUpdates, "records">
  scans: Pick<ScanQueue, "summaries">
  nodes: Pick<NodeRegistry, "list">
  backups: Pick<BackupVerbs, "overdue">
  stats: Pick<StatsSampler, "latest" | "hostHistory" | "disk">
}

type StackItem = Health["stacks"]["items"][number]

/** Points of the host's hour: enough for a sparkline. */
const HOST_POINTS = 60
const FAILED = new Set(["rolled_back", "rollback_failed"])
const ORDER = { failed: 0, degraded: 1, stopped: 2, running: 3 } as const

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))
const unique = (xs: string[]) => [...new Set(xs)].sort()

/** Every stack by health: the stacks kept here with their last update's failure, then the compose projects made elsewhere. */
async function stackItems(p: OverviewParts, containers: ContainerSummary[]): Promise<StackItem[]> {
  const items = await Promise.all(
    (await stackHealths(p.stacks, containers)).map(async (s) => {
      const last = s.managed ? await p.updateRecords.last(s.name) : undefined
      return {
        ...s,
        failed_update:
          last && FAILED.has(last.verdict)
            ? {
                verdict: last.verdict as "rolled_back" | "rollback_failed",
                reason: last.reason,
                finished_at: last.finished_at,
              }
            : null,
      }
    }),
  )
  const rank = (s: StackItem) => (s.failed_update ? ORDER.failed : ORDER[s.health])
  return items.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
}

/** The stacks whose containers (compose's, or a swarm stack's tasks here) run an image. */
function stacksRunning(containers: ContainerSummary[], imageId: string): string[] {
  return unique(
    containers
      .filter((c) => c.ImageID === imageId)
      .flatMap((c) => c.Labels?.[STACK_LABEL] ?? c.Labels?.[STACK_NAMESPACE] ?? []),
  )
}

/**
 * References whose registry serves a newer image. A record is past when its image is gone, or when no
 * container runs it any more and the newer image is here (pulled, or the stack updated).
 */
function pendingUpdates(
  records: Awaited<ReturnType<ImageUpdates["records"]>>,
  images: ImageSummary[],
  containers: ContainerSummary[],
): Health["updates"] {
  const ids = new Set(images.map((i) => i.Id))
  const digests = new Set(images.flatMap((i) => (i.RepoDigests ?? []).map((d) => d.slice(d.indexOf("@") + 1))))
  return Object.values(records.images)
    .filter((r) => r.update_available && r.image && ids.has(r.image))
    .map((r) => ({
      ref: r.ref,
      image: r.image!,
      stacks: stacksRunning(containers, r.image!),
      checked_at: r.checked_at,
      newer: r.remote_digest,
    }))
    .filter((u) => u.stacks.length || !(u.newer && digests.has(u.newer)))
    .map(({ newer: _, ...u }) => u)
    .sort((a, b) => a.ref.localeCompare(b.ref))
}

function criticalImages(
  scans: Awaited<ReturnType<ScanQueue["summaries"]>>,
  images: ImageSummary[],
  containers: ContainerSummary[],
): Health["cves"] {
  return images
    .flatMap((i) => {
      const s = scans.get(i.Id)
      if (!s || s.status !== "done" || s.counts.critical + s.counts.high === 0) return []
      const ref = (i.RepoTags ?? []).find((t) => t !== "<none>:<none>") ?? s.ref
      return [
        {
          image: i.Id,
          ref,
          critical: s.counts.critical,
          high: s.counts.high,
          scanned_at: s.scanned_at,
          stacks: stacksRunning(containers, i.Id),
        },
      ]
    })
    .sort((a, b) => b.critical - a.critical || b.high - a.high || a.ref.localeCompare(b.ref))
}

/** `visible`: the only stacks the caller may see (null: all of them); what belongs to none of them alone is left out. */
export async function overview(p: OverviewParts, visible: string[] | null): Promise<Overview> {
  const errors: Health["errors"] = []
  const part = <T>(name: string, work: () => Promise<T>, fallback: T): Promise<T> =>
    work().catch((err) => {
      errors.push({ part: name, message: message(err) })
      return fallback
    })
  const containers = p.engine.listContainers({ all: true })
  const images = p.engine.listImages()
  const swarm = readSwarm(p.engine)
  const [summary, swarmState, list, imageList, services, records, scans, nodes, overdue, disk] = await Promise.all([
    dashboard(p.engine, {
      disk: p.diskUsage,
      engineVersion: p.engineVersion,
      redactor: redactorFor(p.stacks),
      lists: { containers, images },
    }),
    swarm,
    containers,
    images,
    part("swarm services", async () => ((await swarm).role === "manager" ? listSwarmServices(p.engine) : null), null),
    part("update checks", () => p.imageUpdates.records(), { images: {}, stacks: {} }),
    part("scans", () => p.scans.summaries(), new Map()),
    part("nodes", () => p.nodes.list(), []),
    part("backups", () => p.backups.overdue(), []),
    part("disk", () => p.stats.disk(), null),
  ])

  const sees = (stack: string) => !visible || visible.includes(stack)
  const seen = <T extends { stacks: string[] }>(items: T[]) =>
    visible ? items.map((i) => ({ ...i, stacks: i.stacks.filter(sees) })).filter((i) => i.stacks.length) : items
  const stacks = (await part("stacks", () => stackItems(p, list), [])).filter((s) => sees(s.name))
  const counts = { running: 0, degraded: 0, stopped: 0, failed_update: 0 }
  for (const s of stacks) counts[s.health]++, s.failed_update && counts.failed_update++
  const cves = seen(criticalImages(scans, imageList, list))
  const below = (services ?? [])
    .filter((s) => (s.mode === "replicated" || s.mode === "global") && s.replicas.running < s.replicas.desired)
    .map((s) => ({ id: s.id, name: s.name, stack: s.stack, desired: s.replicas.desired, running: s.replicas.running }))
  const late = overdue.filter((b) => sees(b.stack))
  const online = nodes.filter((n) => n.status === "online").length
  const round = p.stats.latest()
  const use = round.time ? hostUse(round.containers) : null

  const health: Health = {
    ok:
      !counts.degraded &&
      !counts.failed_update &&
      !cves.length &&
      online === nodes.length &&
      !below.length &&
      !late.length &&
      !errors.length,
    stacks: { counts, items: stacks },
    updates: seen(pendingUpdates(records, imageList, list)),
    cves,
    nodes: {
      total: nodes.length,
      online,
      items: nodes.map((n) => ({ name: n.name, status: n.status, error: n.error, checked_at: n.checked_at })),
    },
    swarm: { manager: services !== null, services: services?.length ?? 0, below },
    backups: { overdue: late },
    host: {
      cpus: round.host.cpus,
      memory_bytes: round.host.memory_bytes,
      time: round.time,
      cpu_percent: use?.cpu_percent ?? null,
      used_memory_bytes: use?.memory_bytes ?? null,
      disk,
      history: p.stats.hostHistory(HOST_POINTS),
    },
    errors,
  }
  return { ...summary, swarm: swarmState, health }
}
