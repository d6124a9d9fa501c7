// Owns the per-container gauges on /metrics (SVC_METRICS_CONTAINERS=on): the latest stats round of
// every running container, labelled by container name, stack and service only (never its
// environment or other labels). Registered on first use, so a service without them exposes none.
import { Gauge, type Registry } from "prom-client"
import type { ContainerStats, StatsSampler } from "./sampler.ts"

const LABELS = ["name", "stack", "service"]

const SERIES: [string, string, (c: ContainerStats) => number | null][] = [
  [
    "harbormaster_container_cpu_percent",
    "CPU use as docker stats shows it (100 is one core fully used)",
    (c) => c.cpu_percent,
  ],
  ["harbormaster_container_memory_bytes", "Memory in use without reclaimable page cache", (c) => c.memory_bytes],
  [
    "harbormaster_container_memory_limit_bytes",
    "Memory limit (the host's memory when the container has none)",
    (c) => c.memory_limit_bytes,
  ],
  [
    "harbormaster_container_network_receive_bytes_per_second",
    "Bytes received per second over the last sampling interval",
    (c) => c.net_rx_bytes_per_s,
  ],
  [
    "harbormaster_container_network_transmit_bytes_per_second",
    "Bytes sent per second over the last sampling interval",
    (c) => c.net_tx_bytes_per_s,
  ],
  [
    "harbormaster_container_block_read_bytes_per_second",
    "Block device bytes read per second over the last sampling interval",
    (c) => c.block_read_bytes_per_s,
  ],
  [
    "harbormaster_container_block_write_bytes_per_second",
    "Block device bytes written per second over the last sampling interval",
    (c) => c.block_write_bytes_per_s,
  ],
  ["harbormaster_container_pids", "Processes and threads in the container", (c) => c.pids],
]

export class ContainerGauges {
  private gauges: [Gauge, (c: ContainerStats) => number | null][]

  constructor(registry: Registry) {
    this.gauges = SERIES.map(([name, help, pick]) => [
      new Gauge({ name, help, labelNames: LABELS, registers: [registry] }),
      pick,
    ])
  }

  /** Sets every gauge from the sampler's latest round (waking it for a while when it sleeps). */
  async update(sampler: StatsSampler): Promise<void> {
    const round = await sampler.fresh()
    for (const [gauge] of this.gauges) gauge.reset()
    for (const c of round.containers) {
      const labels = { name: c.name, stack: c.stack ?? "", service: c.service ?? "" }
      for (const [gauge, pick] of this.gauges) {
        const v = pick(c)
        if (v !== null) gauge.set(labels, v)
      }
    }
  }
}
