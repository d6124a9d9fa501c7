// Stats payloads in the engine's real format for tests: a recorded one (Debian 12's engine, API 1.41)
// with its counters set to the values a test needs.
import recorded from "./fixtures/debian12-burn-1.json"

export interface Counters {
  /** ms since the epoch */
  read: number
  cpuNs: number
  systemNs: number
  memUsage?: number
  inactiveFile?: number
  limit?: number
  rx?: number
  tx?: number
  pids?: number
}

export function payload(c: Counters): Record<string, any> {
  const p = structuredClone(recorded) as any
  p.read = new Date(c.read).toISOString()
  p.cpu_stats.cpu_usage.total_usage = c.cpuNs
  p.cpu_stats.system_cpu_usage = c.systemNs
  p.memory_stats.usage = c.memUsage ?? 1_000_000
  p.memory_stats.stats.total_inactive_file = c.inactiveFile ?? 0
  p.memory_stats.limit = c.limit ?? 2 ** 30
  p.networks.eth0.rx_bytes = c.rx ?? 0
  p.networks.eth0.tx_bytes = c.tx ?? 0
  p.pids_stats.current = c.pids ?? 1
  return p
}

/** Two cores: in `seconds`, the host's CPU time grows by 2 × seconds; a container using `cores` grows by cores × seconds. */
export function series(
  start: number,
  cores: number,
  steps: number,
  seconds = 5,
  extra: Partial<Counters> = {},
): Record<string, any>[] {
  return Array.from({ length: steps }, (_, i) =>
    payload({
      read: start + i * seconds * 1000,
      cpuNs: i * seconds * cores * 1e9,
      systemNs: 1e12 + i * seconds * 2e9,
      ...extra,
      rx: (extra.rx ?? 0) * i,
      tx: (extra.tx ?? 0) * i,
    }),
  )
}
