// Owns the arithmetic of container stats: one engine stats payload (`GET /containers/{id}/stats?
// stream=false&one-shot=true`) read into counters, two successive readings turned into a sample
// (CPU %, memory without page cache, rates per second), and a container's CPU limit in cores.
// Pure functions: no engine, no clock.

/** The counters of one stats payload. Cumulative ones (CPU, network, block I/O) need a previous reading to mean anything. */
export interface Reading {
  /** When the engine read the counters (ms since the epoch). */
  read: number
  /** The container's CPU time, ns. */
  cpuTotal: number
  /** The host's CPU time over all its cores, ns (0 when the engine gives none). */
  system: number
  /** CPUs the container can see (the host's online CPUs). */
  onlineCpus: number
  /** Memory in use without the page cache that can be reclaimed, as `docker stats` counts it. */
  memUsed: number
  /** The memory limit the engine reports (the host's memory when the container has none). */
  memLimit: number
  rx: number
  tx: number
  blkRead: number
  blkWrite: number
  pids: number
}

/** One container at one moment, rates over the time since its previous reading. */
export interface Sample {
  /** CPU as `docker stats` shows it: 100 is one core fully used, up to cores × 100; null without a previous reading. */
  cpu: number | null
  /** CPU as a share of all the host's cores (0-100). */
  cpuHost: number | null
  /** CPU as a share of the container's own limit (0-100), null when it has none. */
  cpuLimit: number | null
  mem: number
  memLimit: number
  rx: number | null
  tx: number | null
  blkRead: number | null
  blkWrite: number | null
  pids: number
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0)

/**
 * Memory without the page cache, as the docker CLI computes it (cli/command/container/stats_helpers.go):
 * cgroup v1 reports `total_inactive_file`, cgroup v2 `inactive_file`; either is subtracted from
 * `usage` when it is smaller. Both engines here (Debian 12's 20.10 and Debian 13's 26.1) run on this
 * machine's cgroup v1 hierarchy and report the v1 keys.
 */
export function memoryUsed(mem: { usage?: number; stats?: Record<string, number> } | undefined): number {
  const usage = num(mem?.usage)
  const stats = mem?.stats ?? {}
  if ("total_inactive_file" in stats) {
    const v = num(stats.total_inactive_file)
    if (v < usage) return usage - v
  } else {
    const v = num(stats.inactive_file)
    if (v < usage) return usage - v
  }
  return usage
}

/** Bytes read and written: `io_service_bytes_recursive` entries, op "Read"/"Write" (v1) or "read"/"write" (v2). */
function blockIo(entries: { op?: string; value?: number }[] | null | undefined): { read: number; write: number } {
  let read = 0
  let write = 0
  for (const e of entries ?? []) {
    const op = (e.op ?? "").toLowerCase()
    if (op.startsWith("read")) read += num(e.value)
    else if (op.startsWith("write")) write += num(e.value)
  }
  return { read, write }
}

/**
 * The counters of a stats payload, or null when it describes no running container (the engine
 * answers a stopped one with a zero `read` time and empty sections).
 */
export function parseStats(raw: any): Reading | null {
  const read = Date.parse(raw?.read ?? "")
  if (!Number.isFinite(read) || read <= 0 || String(raw.read).startsWith("0001-")) return null
  const cpu = raw.cpu_stats ?? {}
  let rx = 0
  let tx = 0
  for (const n of Object.values<any>(raw.networks ?? {})) {
    rx += num(n?.rx_bytes)
    tx += num(n?.tx_bytes)
  }
  const io = blockIo(raw.blkio_stats?.io_service_bytes_recursive)
  return {
    read,
    cpuTotal: num(cpu.cpu_usage?.total_usage),
    system: num(cpu.system_cpu_usage),
    onlineCpus:
      num(cpu.online_cpus) || (Array.isArray(cpu.cpu_usage?.percpu_usage) ? cpu.cpu_usage.percpu_usage.length : 0) || 1,
    memUsed: memoryUsed(raw.memory_stats),
    memLimit: num(raw.memory_stats?.limit),
    rx,
    tx,
    blkRead: io.read,
    blkWrite: io.write,
    pids: num(raw.pids_stats?.current),
  }
}

/**
 * A container's CPU limit in cores: the smallest of NanoCpus (`--cpus`), CpuQuota/CpuPeriod
 * (`--cpu-quota`, period 100 ms by default) and the CPUs of CpusetCpus (`--cpuset-cpus`); null
 * when it has none.
 */
export function cpuLimitCores(hostConfig: Record<string, unknown> | undefined): number | null {
  const limits: number[] = []
  const nano = num(hostConfig?.NanoCpus)
  if (nano > 0) limits.push(nano / 1e9)
  const quota = num(hostConfig?.CpuQuota)
  if (quota > 0) limits.push(quota / (num(hostConfig?.CpuPeriod) || 100_000))
  const cpuset = typeof hostConfig?.CpusetCpus === "string" ? hostConfig.CpusetCpus : ""
  if (cpuset) {
    let n = 0
    for (const part of cpuset.split(",")) {
      const [a, b] = part.split("-").map(Number)
      if (a !== undefined && Number.isInteger(a)) n += b !== undefined && Number.isInteger(b) ? b - a + 1 : 1
    }
    if (n > 0) limits.push(n)
  }
  return limits.length ? Math.min(...limits) : null
}

/** A rate per second, or null when the counter went back (the container restarted) or no time passed. */
function rate(prev: number, cur: number, seconds: number): number | null {
  if (seconds <= 0 || cur < prev) return null
  return (cur - prev) / seconds
}

/**
 * The sample of a reading, against the previous reading of the same container. CPU % is the docker
 * CLI's: container CPU time over host CPU time between the two readings, times the online CPUs;
 * when the engine gives no host CPU time, the time between the readings stands in for it.
 */
export function toSample(prev: Reading | undefined, cur: Reading, limitCores: number | null): Sample {
  let cpu: number | null = null
  let rx: number | null = null
  let tx: number | null = null
  let blkRead: number | null = null
  let blkWrite: number | null = null
  if (prev && cur.read > prev.read) {
    const cpuDelta = cur.cpuTotal - prev.cpuTotal
    const systemDelta = cur.system - prev.system
    if (cpuDelta >= 0) {
      if (cur.system > 0 && prev.system > 0) cpu = systemDelta > 0 ? (cpuDelta / systemDelta) * cur.onlineCpus * 100 : 0
      else cpu = (cpuDelta / ((cur.read - prev.read) * 1e6)) * 100
    }
    const seconds = (cur.read - prev.read) / 1000
    rx = rate(prev.rx, cur.rx, seconds)
    tx = rate(prev.tx, cur.tx, seconds)
    blkRead = rate(prev.blkRead, cur.blkRead, seconds)
    blkWrite = rate(prev.blkWrite, cur.blkWrite, seconds)
  }
  return {
    cpu,
    cpuHost: cpu === null ? null : cpu / cur.onlineCpus,
    cpuLimit: cpu === null || limitCores === null ? null : cpu / limitCores,
    mem: cur.memUsed,
    memLimit: cur.memLimit,
    rx,
    tx,
    blkRead,
    blkWrite,
    pids: cur.pids,
  }
}
