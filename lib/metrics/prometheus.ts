// Prometheus metrics through prom-client, on a registry of our own: prom-client's default metrics are
// left out (event loop lag, GC and heap spaces read 0 or nonsense under Bun); the process's RSS, CPU
// time and start time are measured here from what Bun reports correctly. Gauges are filled at scrape
// time from the engine and the data directory; request and probe durations are observed as they happen.
// Loaded only with SVC_METRICS=on (lib/metrics/metrics.ts), so a service without metrics never pays for prom-client.
import { Counter, Gauge, Histogram, prometheusContentType, Registry } from "prom-client"
import type { Exposition, Metrics, Scraped } from "./types.ts"
import { SEVERITIES } from "../images/scanner.ts"
import { stackViews } from "../stacks/state.ts"
import { ContainerGauges } from "../stats/prometheus.ts"
import { listSwarmServices } from "../swarm/services.ts"
import { outboundId, tunnels } from "../cluster/tunnel.ts"

const STACK_STATUSES = ["running", "partly running", "paused", "stopped"]
const CONTAINER_STATES = ["created", "running", "paused", "restarting", "removing", "exited", "dead"]
const NODE_STATUSES = ["online", "offline", "unauthorized", "unknown"]
const SWARM_NODE_STATES = ["ready", "down", "unknown", "disconnected"]
const SWARM_AVAILABILITIES = ["active", "pause", "drain"]

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry()
  private readonly started = Date.now() / 1000
  private cpu = process.cpuUsage()
  /** Per-container gauges, with SVC_METRICS_CONTAINERS=on (lib/stats/prometheus.ts). */
  private containerGauges: ContainerGauges | undefined
  private readonly g = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [this.registry] })

  private readonly http = new Histogram({
    name: "harbormaster_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route pattern, method and status",
    labelNames: ["route", "method", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  })
  private readonly probes = new Histogram({
    name: "harbormaster_node_probe_duration_seconds",
    help: "Time a probe of a registered node took, by node and result",
    labelNames: ["node", "status"],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  })
  private readonly engineUp = this.g("harbormaster_engine_up", "1 when the Docker engine answered during this scrape")
  private readonly stacks = this.g("harbormaster_stacks", "Stacks by status", ["status"])
  private readonly containers = this.g("harbormaster_containers", "Containers by state", ["state"])
  private readonly updates = this.g(
    "harbormaster_image_updates_pending",
    "Image references whose registry serves a newer version than the local image",
  )
  private readonly cves = this.g(
    "harbormaster_image_vulnerabilities",
    "Vulnerabilities found by the latest scan of each local image, by severity",
    ["severity"],
  )
  private readonly scanned = this.g("harbormaster_images_scanned", "Local images with a stored scan result")
  private readonly nodes = this.g("harbormaster_nodes", "Registered nodes by the status of their last probe", [
    "status",
  ])
  private readonly outboundConnected = this.g(
    "harbormaster_outbound_nodes_connected",
    "Outbound nodes holding their connection to this control plane",
  )
  private readonly outboundNode = this.g(
    "harbormaster_outbound_node_connected",
    "1 while each outbound node holds its connection to this control plane, 0 while it does not",
    ["node"],
  )
  private readonly outboundStreams = this.g("harbormaster_outbound_streams", "Streams open to each outbound node", [
    "node",
  ])
  private readonly outboundBytes = new Counter({
    name: "harbormaster_outbound_bytes_total",
    help: "Bytes of answers received from each outbound node",
    labelNames: ["node"],
    registers: [this.registry],
  })
  private readonly outboundReconnects = new Counter({
    name: "harbormaster_outbound_reconnects_total",
    help: "Connections of each outbound node after its first one",
    labelNames: ["node"],
    registers: [this.registry],
  })
  private readonly queue = this.g("harbormaster_scan_queue_length", "Scans waiting or running")
  private readonly swarmDesired = this.g(
    "harbormaster_swarm_service_replicas_desired",
    "Tasks each swarm service should run (a manager's engine only)",
    ["service", "stack"],
  )
  private readonly swarmRunning = this.g(
    "harbormaster_swarm_service_replicas_running",
    "Tasks of each swarm service that run (a manager's engine only)",
    ["service", "stack"],
  )
  private readonly swarmNodes = this.g(
    "harbormaster_swarm_nodes",
    "The swarm's nodes by state and availability (a manager's engine only)",
    ["state", "availability"],
  )
  private readonly lastEvent = this.g(
    "harbormaster_last_engine_event_timestamp_seconds",
    "When the last engine event arrived (Unix time)",
  )
  private readonly rss = this.g("process_resident_memory_bytes", "Resident memory size in bytes")
  private readonly start = this.g(
    "process_start_time_seconds",
    "Start time of the process since the Unix epoch in seconds",
  )
  private readonly updateVerdicts = new Counter({
    name: "harbormaster_stack_updates_total",
    help: "Guarded stack updates by verdict (updated, rolled_back, rollback_failed, unchanged)",
    labelNames: ["verdict"],
    registers: [this.registry],
  })
  private readonly alertsSent = new Counter({
    name: "harbormaster_alerts_total",
    help: "Alerts delivered (sent) or given up (failed), by rule and channel",
    labelNames: ["rule", "channel", "result"],
    registers: [this.registry],
  })
  private readonly alertChannelFailing = this.g(
    "harbormaster_alert_channel_failing",
    "1 while the channel's last try failed",
    ["channel"],
  )
  private readonly alertsPending = this.g("harbormaster_alerts_pending", "Alerts waiting for the channel", ["channel"])
  private readonly alertsActive = this.g(
    "harbormaster_alert_conditions_active",
    "Conditions of the rule raised and not ended",
    ["rule"],
  )
  private readonly notifications = new Counter({
    name: "harbormaster_notifications_total",
    help: "Notifications to SVC_NOTIFY_URLS by result (sent, failed: given up after its retries)",
    labelNames: ["result"],
    registers: [this.registry],
  })
  private readonly backupSuccess = this.g(
    "harbormaster_backup_last_success_timestamp_seconds",
    "When each stack's last backup into each repository succeeded (Unix time; since the service started)",
    ["repository", "stack"],
  )
  private readonly backupSize = this.g(
    "harbormaster_backup_last_size_bytes",
    "Bytes each stack's last successful backup read (records and volume data)",
    ["repository", "stack"],
  )
  private readonly backupFailures = new Counter({
    name: "harbormaster_backup_failures_total",
    help: "Backups of each stack into each repository that failed",
    labelNames: ["repository", "stack"],
    registers: [this.registry],
  })
  /** What the counters above were last brought to (they count in lib/updates; the difference is added at scrape time). */
  private counted: Record<string, number> = {}
  private readonly cpuUser = new Counter({
    name: "process_cpu_user_seconds_total",
    help: "User CPU time spent in seconds",
    registers: [this.registry],
  })
  private readonly cpuSystem = new Counter({
    name: "process_cpu_system_seconds_total",
    help: "System CPU time spent in seconds",
    registers: [this.registry],
  })

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.http.observe({ route, method, status: String(status) }, seconds)
  }

  observeProbe(node: string, status: string, seconds: number): void {
    this.probes.observe({ node, status }, seconds)
  }

  /** The exposition text, gauges read now. A part that cannot be read (engine down) is left out. */
  async render(ctx: Scraped): Promise<Exposition> {
    this.process()
    this.queue.set(ctx.scans.length)
    if (ctx.events.lastEngineEventAt !== undefined) this.lastEvent.set(ctx.events.lastEngineEventAt / 1000)
    this.updates.set((await ctx.imageUpdates.pending()).length)
    for (const [verdict, n] of Object.entries(ctx.guard.counts))
      this.catchUp(this.updateVerdicts, "verdict", verdict, n)
    for (const [result, n] of Object.entries(ctx.notifier.counts)) this.catchUp(this.notifications, "result", result, n)
    this.alerts(ctx.alerts)
    for (const run of ctx.backups.lastRuns()) {
      const labels = { repository: run.repository, stack: run.stack }
      if (run.last_success !== null) this.backupSuccess.set(labels, run.last_success / 1000)
      if (run.size !== null) this.backupSize.set(labels, run.size)
      const key = `backup ${run.repository} ${run.stack}`
      this.backupFailures.inc(labels, run.failures - (this.counted[key] ?? 0))
      this.counted[key] = run.failures
    }
    const nodes = await ctx.nodes.list()
    countInto(
      this.nodes,
      "status",
      NODE_STATUSES,
      nodes.map((n) => n.status),
    )
    this.outbound(nodes)
    const engine = await this.engineGauges(ctx).then(
      () => 1,
      () => 0,
    )
    this.engineUp.set(engine)
    if (engine) await this.swarmGauges(ctx)
    if (ctx.config.metricsContainers)
      await (this.containerGauges ??= new ContainerGauges(this.registry)).update(ctx.stats)
    return { contentType: prometheusContentType, text: await this.registry.metrics() }
  }

  private async engineGauges(ctx: Pick<Scraped, "engine" | "scans" | "stacks">): Promise<void> {
    for (const g of [this.stacks, this.containers, this.cves, this.scanned]) g.reset()
    const [containers, images, scans] = await Promise.all([
      ctx.engine.listContainers({ all: true }),
      ctx.engine.listImages(),
      ctx.scans.results(),
    ])
    const views = await stackViews(ctx.stacks, containers)
    countInto(
      this.stacks,
      "status",
      STACK_STATUSES,
      views.map((v) => v.status),
    )
    countInto(
      this.containers,
      "state",
      CONTAINER_STATES,
      containers.map((c) => c.State),
    )
    const present = images.flatMap((i) => scans.get(i.Id) ?? [])
    for (const s of SEVERITIES)
      this.cves.set(
        { severity: s },
        present.reduce((n, r) => n + (r.counts[s] ?? 0), 0),
      )
    this.scanned.set(present.length)
  }

  /** The swarm's services and nodes, when the engine is a swarm manager; none otherwise. */
  private async swarmGauges(ctx: Pick<Scraped, "engine">): Promise<void> {
    for (const g of [this.swarmDesired, this.swarmRunning, this.swarmNodes]) g.reset()
    const read = await Promise.all([listSwarmServices(ctx.engine), ctx.engine.listNodes()]).catch(() => undefined)
    if (!read) return
    const [services, nodes] = read
    for (const s of services) {
      this.swarmDesired.set({ service: s.name, stack: s.stack ?? "" }, s.replicas.desired)
      this.swarmRunning.set({ service: s.name, stack: s.stack ?? "" }, s.replicas.running)
    }
    for (const state of new Set([...SWARM_NODE_STATES, ...nodes.map((n) => n.Status.State)]))
      for (const availability of new Set([...SWARM_AVAILABILITIES, ...nodes.map((n) => n.Spec.Availability)]))
        this.swarmNodes.set(
          { state, availability },
          nodes.filter((n) => n.Status.State === state && n.Spec.Availability === availability).length,
        )
  }

  /** The outbound nodes' connections; counters set to the totals kept in lib/cluster/tunnel.ts. */
  private outbound(nodes: { name: string; server_id: string; url: string }[]): void {
    const names = new Map(nodes.map((n) => [n.server_id, n.name]))
    this.outboundConnected.set(tunnels.size())
    for (const m of [this.outboundNode, this.outboundStreams, this.outboundBytes, this.outboundReconnects]) m.reset()
    for (const n of nodes)
      if (outboundId(n.url)) this.outboundNode.set({ node: n.name }, tunnels.connected(n.server_id) ? 1 : 0)
    for (const [serverId, c] of tunnels.counters) {
      const node = names.get(serverId) ?? serverId
      this.outboundStreams.set({ node }, c.streams)
      this.outboundBytes.inc({ node }, c.bytes)
      this.outboundReconnects.inc({ node }, c.reconnects)
    }
  }

  private alerts(alerts: Scraped["alerts"]): void {
    if (!alerts) return
    const m = alerts.metrics()
    for (const a of m.alerts) {
      const key = `alerts ${a.rule}\u0000${a.channel}\u0000${a.result}`
      this.alertsSent.inc(
        { rule: a.rule, channel: a.channel, result: a.result },
        Math.max(0, a.n - (this.counted[key] ?? 0)),
      )
      this.counted[key] = a.n
    }
    this.alertChannelFailing.reset()
    this.alertsPending.reset()
    this.alertsActive.reset()
    for (const c of m.channels) {
      this.alertChannelFailing.set({ channel: c.channel }, c.failing)
      this.alertsPending.set({ channel: c.channel }, c.pending)
    }
    for (const r of m.active) this.alertsActive.set({ rule: r.rule }, r.n)
  }

  /** Adds to a counter what a count kept elsewhere grew by since the last scrape (every label value present from the start). */
  private catchUp(counter: Counter, label: string, value: string, total: number): void {
    const key = `${label}=${value}`
    counter.inc({ [label]: value }, Math.max(0, total - (this.counted[key] ?? 0)))
    this.counted[key] = total
  }

  private process(): void {
    const now = process.cpuUsage()
    this.cpuUser.inc(Math.max(0, now.user - this.cpu.user) / 1e6)
    this.cpuSystem.inc(Math.max(0, now.system - this.cpu.system) / 1e6)
    this.cpu = now
    this.rss.set(process.memoryUsage().rss)
    this.start.set(this.started)
  }
}

/** Sets one series per value (the known ones at 0 when absent). */
function countInto(gauge: Gauge, label: string, known: string[], values: string[]): void {
  gauge.reset()
  for (const v of new Set([...known, ...values])) gauge.set({ [label]: v }, values.filter((x) => x === v).length)
}
