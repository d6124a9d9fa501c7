// The system summary: one round of engine calls, all at once, and the full container list.
import { containerRecord, type ContainerRecord, type Redactor } from "./containers.ts"
import type { DiskUsageCache } from "./disk-usage.ts"
import type { ContainerSummary, Engine, EngineVersion, ImageSummary } from "./client.ts"
import type { Reused } from "./reused.ts"

export interface Dashboard {
  engine: { version: string; api_version: string; os: string; arch: string; kernel: string | null }
  /** Container counts by state (created, running, paused, restarting, exited, dead), plus the total. */
  container_states: Record<string, number> & { total: number }
  images: { count: number; size: number }
  volumes: { count: number }
  networks: { count: number }
  /** Bytes on disk, as the engine's `system df` counts them. */
  disk: { images: number; containers: number; volumes: number; build_cache: number; total: number }
  /** Every container, running or not. */
  containers: ContainerRecord[]
}

const STATES = ["created", "running", "paused", "restarting", "exited", "dead"]
const sum = (xs: (number | undefined)[] = []) => xs.reduce<number>((a, x) => a + (x && x > 0 ? x : 0), 0)

/**
 * `disk` and `version` are shared between callers and reused for a while: the engine counts disk usage
 * one request at a time, and answering its version costs it more than listing 200 containers. The
 * containers are shown through `redactor`. A caller that reads the container and image lists for
 * more than this summary hands them in as `lists`, so the engine is asked once.
 */
export async function dashboard(
  engine: Engine,
  {
    disk,
    engineVersion,
    redactor,
    lists = {},
  }: {
    disk: DiskUsageCache
    engineVersion: Reused<EngineVersion>
    redactor?: Redactor
    lists?: { containers?: Promise<ContainerSummary[]>; images?: Promise<ImageSummary[]> }
  },
): Promise<Dashboard> {
  const [version, list, images, volumes, networks, df] = await Promise.all([
    engineVersion.get(),
    lists.containers ?? engine.listContainers({ all: true }),
    lists.images ?? engine.listImages(),
    engine.listVolumes(),
    engine.listNetworks(),
    disk.get(),
  ])
  const states: Dashboard["container_states"] = { total: list.length, ...Object.fromEntries(STATES.map((s) => [s, 0])) }
  for (const c of list) states[c.State] = (states[c.State] ?? 0) + 1
  const usage = {
    images: df.LayersSize ?? 0,
    containers: sum(df.Containers?.map((c) => c.SizeRw)),
    volumes: sum(df.Volumes?.map((v) => v.UsageData?.Size)),
    build_cache: sum(df.BuildCache?.map((b) => b.Size)),
  }
  return {
    engine: {
      version: version.Version,
      api_version: version.ApiVersion,
      os: version.Os,
      arch: version.Arch,
      kernel: version.KernelVersion ?? null,
    },
    container_states: states,
    images: { count: images.length, size: sum(images.map((i) => i.Size)) },
    volumes: { count: volumes.length },
    networks: { count: networks.length },
    disk: { ...usage, total: usage.images + usage.containers + usage.volumes + usage.build_cache },
    containers: list.map((c) => containerRecord(c, redactor)),
  }
}
