// Owns the one stats sampler of the engine: every interval it lists the running containers, reads
// each one's stats once (a few at a time), turns the readings into samples against its own previous
// ones, sums them per stack, keeps the history (lib/stats/history.ts) and hands each round to the
// SSE subscribers. It samples only while someone listens, while history is on, or for a minute
// after someone asked (GET, a scrape); a container that stops leaves the round it stopped in. With
// history on it also keeps the host's hour: what all the containers use of its CPUs and memory, and
// the disk space used on the filesystem of the data directory.
import { statfs } from "node:fs/promises"
import { setTimeout as pause } from "node:timers/promises"
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import type { ContainerSummary, Engine } from "../engine/client.ts"
import { Fanout } from "../engine/fanout.ts"
import { HistoryStore, Ring, SERIES, slotsFor, WINDOW_MS, type Columns, type Series } from "./history.ts"
import { cpuLimitCores, parseStats, toSample, type Reading, type Sample } from "./reading.ts"

export interface ContainerStats {
  id: string
  name: string
  stack: string | null
  service: string | null
  /** The round this sample belongs to (ISO time). */
  time: string
  /** As `docker stats`: 100 is one core fully used, up to cores × 100. Null in a container's first round. */
  cpu_percent: number | null
  /** Share of all the host's cores (0-100). */
  cpu_host_percent: number | null
  /** Share of the container's CPU limit (0-100); null without a limit. */
  cpu_limit_percent: number | null
  /** The limit in cores (NanoCpus, CpuQuota/CpuPeriod or CpusetCpus), null without one. */
  cpu_limit_cores: number | null
  /** Memory in use without reclaimable page cache, as `docker stats` counts it. */
  memory_bytes: number
  /** The container's memory limit (the host's memory when it has none). */
  memory_limit_bytes: number
  memory_percent: number
  net_rx_bytes_per_s: number | null
  net_tx_bytes_per_s: number | null
  block_read_bytes_per_s: number | null
  block_write_bytes_per_s: number | null
  pids: number
}

export interface StackStats {
  name: string
  /** Running containers summed. */
  containers: number
  cpu_percent: number
  cpu_host_percent: number
  memory_bytes: number
  net_rx_bytes_per_s: number
  net_tx_bytes_per_s: number
  block_read_bytes_per_s: number
  block_write_bytes_per_s: number
  pids: number
}

export interface HostStats {
  /** The engine's NCPU. */
  cpus: number | null
  /** The engine's MemTotal. */
  memory_bytes: number | null
}

export interface Round {
  /** When the round started (ISO); null before the first one. */
  time: string | null
  interval: number
  host: HostStats
  containers: ContainerStats[]
  stacks: StackStats[]
  /** Why the last round could not list the containers (the engine is down), else null. */
  error: string | null
}

export type History = { interval: number } & Record<string, number[] | (number | null)[] | number>

/** What the host's ring keeps each round. */
const HOST_SERIES = ["cpu", "mem", "disk"] as const
type HostSeries = (typeof HOST_SERIES)[number]

/** The filesystem of a path: bytes in all and in use (statfs). */
export interface DiskSpace {
  path: string
  total_bytes: number
  used_bytes: number
}

/** The host's last hour, oldest first: the containers' CPU (share of all its cores, 0-100) and memory, and the disk space used. */
export interface HostHistory {
  interval: number
  time: number[]
  cpu_percent: (number | null)[]
  memory_bytes: (number | null)[]
  disk_used_bytes: (number | null)[]
}

/** The history columns under the API's names. */
export const HISTORY_NAMES: Record<Series, string> = {
  cpu: "cpu_percent",
  mem: "memory_bytes",
  rx: "net_rx_bytes_per_s",
  tx: "net_tx_bytes_per_s",
  blkRead: "block_read_bytes_per_s",
  blkWrite: "block_write_bytes_per_s",
  pids: "pids",
}

export interface SamplerOptions {
  /** Seconds between rounds (SVC_STATS_INTERVAL). */
  interval: number
  /** Keep an hour of history, and so sample all the time (SVC_STATS_HISTORY). */
  history: boolean
  /** Stats reads at once. */
  concurrency?: number
  now?: () => number
  budgetBytes?: number
  /** A path whose filesystem's space is read each round (the data directory). */
  disk?: string
}

/** How long a GET or a scrape keeps a sampler without history awake. */
export const LEASE_MS = 60_000
/** Limits (from inspect) are read again after this long. */
const LIMIT_REFRESH_MS = 300_000
const HOST_REFRESH_MS = 300_000
/** Rounds a subscriber may fall behind before it is dropped. */
const QUEUE_LIMIT = 20

const round2 = (n: number | null) => (n === null || !Number.isFinite(n) ? null : Math.round(n * 100) / 100)
const whole = (n: number | null) => (n === null || !Number.isFinite(n) ? null : Math.round(n))

/** Runs `fn` over `items` with at most `limit` at once; results in order. */
export async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/** Waits `ms`, or less when the signal aborts. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> => pause(ms, undefined, { signal }).catch(() => {})

export function containerStats(
  c: ContainerSummary,
  s: Sample,
  limitCores: number | null,
  time: string,
): ContainerStats {
  return {
    id: c.Id,
    name: (c.Names?.[0] ?? "").replace(/^\//, ""),
    stack: c.Labels?.[STACK_LABEL] ?? null,
    service: c.Labels?.[SERVICE_LABEL] ?? null,
    time,
    cpu_percent: round2(s.cpu),
    cpu_host_percent: round2(s.cpuHost),
    cpu_limit_percent: round2(s.cpuLimit),
    cpu_limit_cores: limitCores,
    memory_bytes: s.mem,
    memory_limit_bytes: s.memLimit,
    memory_percent: s.memLimit > 0 ? round2((s.mem / s.memLimit) * 100)! : 0,
    net_rx_bytes_per_s: whole(s.rx),
    net_tx_bytes_per_s: whole(s.tx),
    block_read_bytes_per_s: whole(s.blkRead),
    block_write_bytes_per_s: whole(s.blkWrite),
    pids: s.pids,
  }
}

export const emptyStack = (name: string): StackStats => ({
  name,
  containers: 0,
  cpu_percent: 0,
  cpu_host_percent: 0,
  memory_bytes: 0,
  net_rx_bytes_per_s: 0,
  net_tx_bytes_per_s: 0,
  block_read_bytes_per_s: 0,
  block_write_bytes_per_s: 0,
  pids: 0,
})

/** Per-stack sums of the containers of a round (containers of no compose project are left out). */
export function stackSums(containers: ContainerStats[]): StackStats[] {
  const sums = new Map<string, StackStats>()
  for (const c of containers) {
    if (c.stack === null) continue
    const s = sums.get(c.stack) ?? emptyStack(c.stack)
    s.containers++
    s.cpu_percent += c.cpu_percent ?? 0
    s.cpu_host_percent += c.cpu_host_percent ?? 0
    s.memory_bytes += c.memory_bytes
    s.net_rx_bytes_per_s += c.net_rx_bytes_per_s ?? 0
    s.net_tx_bytes_per_s += c.net_tx_bytes_per_s ?? 0
    s.block_read_bytes_per_s += c.block_read_bytes_per_s ?? 0
    s.block_write_bytes_per_s += c.block_write_bytes_per_s ?? 0
    s.pids += c.pids
    sums.set(c.stack, s)
  }
  return [...sums.values()]
    .map((s) => ({ ...s, cpu_percent: round2(s.cpu_percent)!, cpu_host_percent: round2(s.cpu_host_percent)! }))
    .sort((a, b) => a.name.localeCompare(b.name))
}

/** What the containers of a round use of the host: CPU as a share of all its cores (0-100), memory in bytes. */
export function hostUse(containers: ContainerStats[]): { cpu_percent: number; memory_bytes: number } {
  let cpu = 0
  let mem = 0
  for (const c of containers) (cpu += c.cpu_host_percent ?? 0), (mem += c.memory_bytes)
  return { cpu_percent: round2(cpu)!, memory_bytes: mem }
}

const slotOf = (s: ContainerStats | StackStats): Record<Series, number | null> => ({
  cpu: s.cpu_percent,
  mem: s.memory_bytes,
  rx: s.net_rx_bytes_per_s,
  tx: s.net_tx_bytes_per_s,
  blkRead: s.block_read_bytes_per_s,
  blkWrite: s.block_write_bytes_per_s,
  pids: s.pids,
})

export class StatsSampler {
  readonly interval: number
  readonly keepsHistory: boolean
  private readonly concurrency: number
  private readonly now: () => number
  private readonly store: HistoryStore
  private readonly hostRing: Ring<HostSeries>
  private readonly diskPath: string | undefined
  private diskNow: DiskSpace | null = null
  private prev = new Map<string, Reading>()
  private limits = new Map<string, { cores: number | null; at: number }>()
  private current: Round
  private hostAt = 0
  private leaseUntil = 0
  private wake: (() => void) | undefined
  private waiters: (() => void)[] = []
  private subscribers = new Fanout<Round>(QUEUE_LIMIT)
  private looping = false
  /** Rounds published since start. */
  rounds = 0

  constructor(
    private readonly engine: Engine,
    opts: SamplerOptions,
  ) {
    this.interval = Math.max(1, opts.interval)
    this.keepsHistory = opts.history
    this.concurrency = opts.concurrency ?? 8
    this.now = opts.now ?? Date.now
    this.store = new HistoryStore(slotsFor(this.interval), this.interval * 1000, opts.budgetBytes)
    this.hostRing = new Ring(opts.history ? slotsFor(this.interval) : 2, HOST_SERIES)
    this.diskPath = opts.disk
    this.current = {
      time: null,
      interval: this.interval,
      host: { cpus: null, memory_bytes: null },
      containers: [],
      stacks: [],
      error: null,
    }
  }

  get history(): HistoryStore {
    return this.store
  }

  get subscriberCount(): number {
    return this.subscribers.size
  }

  /** Whether rounds are being taken now. */
  active(): boolean {
    return this.keepsHistory || this.subscribers.size > 0 || this.now() < this.leaseUntil
  }

  /** The latest round. */
  latest(): Round {
    return this.current
  }

  /**
   * The latest round, fresh: when the sampler was asleep (no history, no listener), it wakes, keeps
   * sampling for LEASE_MS, and the answer waits for its first round (at most `waitMs`).
   */
  async fresh(waitMs = 5000): Promise<Round> {
    this.leaseUntil = this.now() + LEASE_MS
    const t = this.current.time ? Date.parse(this.current.time) : 0
    if (t && this.now() - t <= 2 * this.interval * 1000 + 1000) return this.current
    // Nobody runs the loop (a test's context, a tool): one round here and now.
    if (!this.looping) return this.round()
    this.wake?.()
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      new Promise<void>((r) => this.waiters.push(r)),
      new Promise<void>((r) => (timer = setTimeout(r, waitMs))),
    ])
    clearTimeout(timer)
    return this.current
  }

  /** Samples until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    let primed = false
    this.looping = true
    signal.addEventListener("abort", () => (this.looping = false), { once: true })
    while (!signal.aborted) {
      if (!this.active()) {
        this.forget()
        primed = false
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener("abort", done)
            this.wake = undefined
            resolve()
          }
          this.wake = done
          signal.addEventListener("abort", done, { once: true })
        })
        if (signal.aborted) break
      }
      // Waking from sleep: a reading one second before the first round, so that round has CPU and rates.
      if (!primed && !this.keepsHistory) {
        await this.round(false)
        await sleep(1000, signal)
      }
      primed = true
      const started = this.now()
      await this.round(true)
      await sleep(Math.max(0, this.interval * 1000 - (this.now() - started)), signal)
    }
  }

  /** One round: list, read every running container (a few at a time), publish. Never throws. */
  async round(publish = true): Promise<Round> {
    const at = this.now()
    const time = new Date(at).toISOString()
    let list: ContainerSummary[]
    try {
      list = (await this.engine.listContainers()).filter((c) => c.State === "running" || c.State === "paused")
      await this.refreshHost(at)
    } catch (err) {
      this.prev.clear()
      if (publish)
        this.publish({
          ...this.current,
          time,
          containers: [],
          stacks: [],
          error: err instanceof Error ? err.message : String(err),
        })
      return this.current
    }
    const results = await mapBounded(list, this.concurrency, (c) => this.read(c, at, time))
    const containers = results
      .filter((c): c is ContainerStats => c !== null)
      .sort((a, b) => a.name.localeCompare(b.name))
    const present = new Set(list.map((c) => c.Id))
    for (const id of this.prev.keys()) if (!present.has(id)) this.prev.delete(id)
    for (const id of this.limits.keys()) if (!present.has(id)) this.limits.delete(id)
    if (!publish) return this.current
    const stacks = stackSums(containers)
    if (this.keepsHistory) {
      for (const c of containers) this.store.push(`c:${c.id}`, at, slotOf(c))
      for (const s of stacks) this.store.push(`s:${s.name}`, at, slotOf(s))
      this.store.expire(at)
      await this.readDisk()
      const used = hostUse(containers)
      this.hostRing.push(at, { cpu: used.cpu_percent, mem: used.memory_bytes, disk: this.diskNow?.used_bytes ?? null })
    }
    this.publish({ time, interval: this.interval, host: this.current.host, containers, stacks, error: null })
    return this.current
  }

  private async read(c: ContainerSummary, at: number, time: string): Promise<ContainerStats | null> {
    try {
      let limit = this.limits.get(c.Id)
      if (!limit || at - limit.at > LIMIT_REFRESH_MS) {
        const inspect = await this.engine.inspectContainer(c.Id)
        limit = { cores: cpuLimitCores(inspect.HostConfig), at }
        this.limits.set(c.Id, limit)
      }
      const reading = parseStats(await this.engine.stats(c.Id))
      if (!reading) {
        this.prev.delete(c.Id)
        return null
      }
      const sample = toSample(this.prev.get(c.Id), reading, limit.cores)
      this.prev.set(c.Id, reading)
      return containerStats(c, sample, limit.cores, time)
    } catch {
      // Gone between the list and the read (404), or the engine failed for this one: it leaves this round.
      this.prev.delete(c.Id)
      return null
    }
  }

  private async readDisk(): Promise<void> {
    if (!this.diskPath) return
    try {
      const fs = await statfs(this.diskPath)
      this.diskNow = {
        path: this.diskPath,
        total_bytes: fs.blocks * fs.bsize,
        used_bytes: (fs.blocks - fs.bfree) * fs.bsize,
      }
    } catch {
      this.diskNow = null
    }
  }

  /** The disk space of the data directory's filesystem: as of the last round with history, else read now; null when it cannot be read. */
  async disk(): Promise<DiskSpace | null> {
    if (!this.keepsHistory) await this.readDisk()
    return this.diskNow
  }

  /** The host's last hour (empty without history); `points` averages it down. */
  hostHistory(points?: number): HostHistory {
    const cols = this.hostRing.read(this.now() - WINDOW_MS, points)
    return {
      interval: this.interval,
      time: cols.time,
      cpu_percent: cols.cpu.map(round2),
      memory_bytes: cols.mem.map(whole),
      disk_used_bytes: cols.disk.map(whole),
    }
  }

  private async refreshHost(at: number): Promise<void> {
    if (this.current.host.cpus !== null && at - this.hostAt < HOST_REFRESH_MS) return
    const info = await this.engine.info()
    this.current = {
      ...this.current,
      host: { cpus: Number(info.NCPU) || null, memory_bytes: Number(info.MemTotal) || null },
    }
    this.hostAt = at
  }

  private publish(r: Round): void {
    this.current = r
    this.rounds++
    for (const w of this.waiters.splice(0)) w()
    this.subscribers.publish(r)
  }

  /** Asleep: the previous readings are stale and the latest round is no longer current. */
  private forget(): void {
    this.prev.clear()
    if (this.current.containers.length) this.current = { ...this.current, containers: [], stacks: [] }
  }

  /** The history of a container or a stack, oldest first, under the API's names; `points` averages it down. */
  historyOf(kind: "container" | "stack", key: string, points?: number): History {
    const ring = this.store.get(`${kind === "container" ? "c" : "s"}:${key}`)
    const cols: Columns | undefined = ring?.read(0, points)
    const out: History = { interval: this.interval, time: cols?.time ?? [] }
    for (const s of SERIES) {
      const values = cols?.[s] ?? []
      out[HISTORY_NAMES[s]] = s === "cpu" ? values.map(round2) : values.map(whole)
    }
    return out
  }

  /** New rounds until the signal aborts; the sampler wakes for a subscriber. One that falls QUEUE_LIMIT rounds behind is dropped. */
  async *subscribe(signal: AbortSignal): AsyncGenerator<Round> {
    const rounds = this.subscribers.subscribe(signal)
    try {
      const first = rounds.next() // registers the subscriber before the sampler wakes for it
      this.wake?.()
      for (let r = await first; !r.done; r = await rounds.next()) yield r.value
    } finally {
      await rounds.return(undefined)
    }
  }
}
