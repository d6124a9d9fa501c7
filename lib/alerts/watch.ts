// What the rules watch, turned into conditions: the engine's container events as they arrive
// (die with a non-zero code, oom, health_status, start, destroy), the service's own events (a stack
// stopped on purpose, an outbound node coming and going), the stats sampler's rounds (only while a
// cpu or memory rule exists), and a poll every `pollMs` of what has no event: stacks' health,
// overdue backups, swarm services' replicas, registered nodes (probed), the disks' use.
import type { ServiceEvent } from "../engine/events.ts"
import type { Conditions, Raise } from "./conditions.ts"
import { covers, DEFAULTS, muted, type Rule, type RuleKind, type Subject } from "./rules.ts"

/** A container's round of the sampler, as the thresholds read it. */
export interface RoundLike {
  host: { cpus: number | null; memory_bytes: number | null }
  containers: {
    name: string
    stack: string | null
    cpu_percent: number | null
    cpu_host_percent: number | null
    memory_bytes: number
    memory_percent: number
  }[]
}

export interface DiskLike {
  path: string
  total_bytes: number
  used_bytes: number
}

/** Where the watched things come from (the service wires them; tests hand in their own). */
export interface Sources {
  events: { subscribe(signal: AbortSignal): AsyncGenerator<ServiceEvent> }
  rounds?: (signal: AbortSignal) => AsyncGenerator<RoundLike>
  dataDisk?: () => Promise<DiskLike | null>
  engineDisk?: () => Promise<DiskLike | null>
  /** Stacks kept here and their health. */
  stacks?: () => Promise<{ name: string; health: "running" | "degraded" | "stopped"; reason: string | null }[]>
  overdue?: () => Promise<{ repository: string; stack: string; due: string }[]>
  /** Swarm services with their replicas (null: this engine manages no swarm). */
  swarm?: () => Promise<{ name: string; stack: string | null; desired: number; running: number }[] | null>
  /** Registered nodes after a probe of those reached directly. */
  nodes?: () => Promise<{ name: string; status: string; error: string | null }[]>
  /** The event streams of the nodes `wanted` names, each event handed to `onEvent` with its node, until the signal aborts. */
  nodeEvents?: (
    wanted: () => string[] | "*",
    onEvent: (node: string, e: ServiceEvent) => void,
    signal: AbortSignal,
  ) => Promise<void>
}

const STACK_LABEL = "com.docker.compose.project"
/** Bytes as people read them: 512 MiB, 1.5 GiB. */
const size = (bytes: number) =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${Math.round(bytes / 2 ** 20)} MiB`

/** A container must run this long after a start before its death or OOM counts as over. */
export const SETTLE_MS = 30_000
/** A stack verb that stops it on purpose, and those that mean it should run again. */
const STOPPING = new Set(["stop", "pause", "down", "remove", "kill"])
const RUNNING = new Set(["start", "restart", "unpause", "up", "deploy", "update", "apply", "rollback", "sync"])

export class Watch {
  /** Each container's recent deaths (ms), per restart_loop rule window. */
  private readonly deaths = new Map<string, number[]>()
  /** Stacks stopped on purpose (a verb of the service), and stacks seen at least once. */
  private readonly stoppedOnPurpose = new Set<string>()
  private readonly seenStacks = new Set<string>()
  private stackCheck: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly parts: {
      conditions: Conditions
      rules: () => Rule[]
      sources: Sources
      now: () => number
      pollMs: number
      /** How long a container runs again before its death or OOM counts as over (default SETTLE_MS). */
      settleMs?: number
    },
  ) {}

  private of(kind: RuleKind): Rule[] {
    return this.parts.rules().filter((r) => r.kind === kind)
  }

  /** Follows the sources until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener("abort", () => clearTimeout(this.stackCheck), { once: true })
    await Promise.all([
      this.follow(signal),
      this.polls(signal),
      this.thresholds(signal),
      this.parts.sources.nodeEvents?.(
        () => this.nodesWanted(),
        (node, e) => e.source === "engine" && e.type === "container" && this.container(e, node),
        signal,
      ),
    ])
  }

  /** The nodes whose containers a container rule names (`*`: all of them). */
  private nodesWanted(): string[] | "*" {
    const kinds = new Set<RuleKind>(["container_died", "container_oom", "container_unhealthy", "restart_loop"])
    const names = this.parts.rules().flatMap((r) => (kinds.has(r.kind) ? (r.scope.nodes ?? []) : []))
    return names.includes("*") ? "*" : [...new Set(names)]
  }

  private async follow(signal: AbortSignal): Promise<void> {
    for await (const e of this.parts.sources.events.subscribe(signal)) {
      try {
        if (e.source === "engine" && e.type === "container") this.container(e)
        else if (e.source === "service") this.service(e)
      } catch {}
    }
  }

  /** An engine event about a container: this server's, or (`node`) a node's. */
  container(e: ServiceEvent, node?: string): void {
    const a = e.attributes ?? {}
    const container = e.name ?? e.id?.slice(0, 12) ?? "?"
    // A node's container is named with its node, in messages and in its conditions' keys.
    const name = node ? `${container} on node ${node}` : container
    const subject: Subject = { stack: a[STACK_LABEL] ?? null, labels: a, ...(node && { node, remote: true }) }
    const c = this.parts.conditions
    const raise = (kind: RuleKind, r: (rule: Rule) => Raise | undefined, count?: (rule: Rule) => number) => {
      for (const rule of this.of(kind)) {
        if (!covers(rule.scope, subject)) continue
        const what = r(rule)
        if (what) c.raise(rule, `${rule.id}:${name}`, what, count?.(rule))
      }
    }
    const settle = (kind: RuleKind, hold: (rule: Rule) => number, text: string) => {
      for (const rule of this.of(kind)) c.settle(`${rule.id}:${name}`, hold(rule), text)
    }
    const action = e.action.split(":")[0]!
    const stack = subject.stack ?? null
    if (action === "die") {
      const code = Number(a.exitCode ?? 0)
      if (code !== 0)
        raise("container_died", () => ({
          title: `container ${name} exited with code ${code}`,
          text: `${name}${stack ? ` (stack ${stack})` : ""} exited with code ${code}`,
          stack,
          severity: "critical",
        }))
      const now = this.parts.now()
      raise(
        "restart_loop",
        (rule) => {
          const window = (rule.minutes ?? DEFAULTS.loopMinutes) * 60_000
          const times = (this.deaths.get(`${rule.id}:${name}`) ?? []).filter((t) => now - t < window)
          times.push(now)
          this.deaths.set(`${rule.id}:${name}`, times)
          const n = rule.restarts ?? DEFAULTS.restarts
          if (times.length < n && !c.has(`${rule.id}:${name}`)) return undefined
          return {
            title: `container ${name} restarts in a loop`,
            text: `${name}${stack ? ` (stack ${stack})` : ""} stopped ${times.length} times within ${rule.minutes ?? DEFAULTS.loopMinutes} minutes (last exit code ${code})`,
            stack,
            severity: "critical",
          }
        },
        (rule) => this.deaths.get(`${rule.id}:${name}`)?.length ?? 1,
      )
      if (!node) this.soon(stack)
    } else if (action === "oom") {
      raise("container_oom", () => ({
        title: `container ${name} ran out of memory`,
        text: `${name}${stack ? ` (stack ${stack})` : ""} was killed for memory (OOM)`,
        stack,
        severity: "critical",
      }))
    } else if (action === "health_status") {
      const status = e.action.slice(e.action.indexOf(":") + 1).trim()
      if (status === "unhealthy")
        raise("container_unhealthy", () => ({
          title: `container ${name} is unhealthy`,
          text: `${name}${stack ? ` (stack ${stack})` : ""} failed its healthcheck`,
          stack,
          severity: "warning",
        }))
      else if (status === "healthy") settle("container_unhealthy", () => 0, `${name} is healthy again`)
      if (!node) this.soon(stack)
    } else if (action === "start") {
      const hold = this.parts.settleMs ?? SETTLE_MS
      settle("container_died", () => hold, `${name} has been running again for ${hold / 1000} s`)
      settle("container_oom", () => hold, `${name} has been running again for ${hold / 1000} s`)
      settle(
        "restart_loop",
        (rule) => (rule.minutes ?? DEFAULTS.loopMinutes) * 60_000,
        `${name} has stopped restarting`,
      )
      if (!node) this.soon(stack)
    } else if (action === "destroy") {
      for (const kind of ["container_died", "container_oom", "container_unhealthy", "restart_loop"] as const)
        for (const rule of this.of(kind)) {
          this.deaths.delete(`${rule.id}:${name}`)
          c.end(`${rule.id}:${name}`, `${name} was removed`)
        }
      if (!node) this.soon(stack)
    } else if ((action === "stop" || action === "kill") && !node) this.soon(stack)
  }

  /** The service's own events: a stack stopped or started through the service, an outbound node. */
  service(e: ServiceEvent): void {
    if (e.type === "stack" && e.name) {
      if (STOPPING.has(e.action)) this.stoppedOnPurpose.add(e.name)
      else if (RUNNING.has(e.action)) this.stoppedOnPurpose.delete(e.name)
      if (e.action === "remove")
        for (const rule of this.of("stack_degraded"))
          this.parts.conditions.end(`${rule.id}:${e.name}`, `${e.name} was removed`)
      this.soon(e.name)
    }
    if (e.type === "node" && e.name) this.node(e.name, e.action === "offline" ? "offline" : "online", e.message ?? null)
  }

  private node(name: string, status: string, error: string | null): void {
    for (const rule of this.of("node_offline")) {
      if (!covers(rule.scope, { node: name })) continue
      const key = `${rule.id}:${name}`
      if (status === "offline")
        this.parts.conditions.raise(rule, key, {
          title: `node ${name} is offline`,
          text: error ?? `node ${name} does not answer`,
          stack: null,
          severity: "critical",
        })
      else if (status === "online") this.parts.conditions.end(key, `node ${name} is back online`)
    }
  }

  /** A stack check soon after a container of it changed (more changes meanwhile wait for the same check). */
  private soon(stack: string | null): void {
    if (!stack || this.stackCheck || !this.of("stack_degraded").length) return
    this.stackCheck = setTimeout(() => {
      this.stackCheck = undefined
      void this.checkStacks().catch(() => {})
    }, 2000)
  }

  async checkStacks(): Promise<void> {
    const rules = this.of("stack_degraded")
    if (!rules.length || !this.parts.sources.stacks) return
    for (const s of await this.parts.sources.stacks()) {
      const first = !this.seenStacks.has(s.name)
      this.seenStacks.add(s.name)
      // A stack found stopped at the first look was stopped before: taken as meant.
      if (first && s.health === "stopped") this.stoppedOnPurpose.add(s.name)
      if (s.health === "running") this.stoppedOnPurpose.delete(s.name)
      for (const rule of rules) {
        if (!covers(rule.scope, { stack: s.name })) continue
        const key = `${rule.id}:${s.name}`
        const bad = s.health === "degraded" || (s.health === "stopped" && !this.stoppedOnPurpose.has(s.name))
        if (bad)
          this.parts.conditions.raise(rule, key, {
            title: `stack ${s.name} is ${s.health}`,
            text: `${s.name}: ${s.reason ?? s.health}`,
            stack: s.name,
            severity: s.health === "stopped" ? "critical" : "warning",
          })
        else
          this.parts.conditions.end(
            key,
            `${s.name} is ${s.health === "running" ? "running again" : "stopped on purpose"}`,
          )
      }
    }
  }

  private async polls(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await Promise.all(
        [this.checkStacks(), this.checkBackups(), this.checkSwarm(), this.checkNodes(), this.checkDisks()].map((p) =>
          p.catch(() => {}),
        ),
      )
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.parts.pollMs)
        signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true })
      })
    }
  }

  async checkBackups(): Promise<void> {
    const rules = this.of("backup_overdue")
    if (!rules.length || !this.parts.sources.overdue) return
    const overdue = await this.parts.sources.overdue()
    const now = new Set(overdue.map((b) => `${b.repository}/${b.stack}`))
    for (const rule of rules) {
      for (const b of overdue)
        if (covers(rule.scope, { stack: b.stack }))
          this.parts.conditions.raise(rule, `${rule.id}:${b.repository}/${b.stack}`, {
            title: `backup of ${b.stack} to ${b.repository} is overdue`,
            text: `the scheduled backup of ${b.stack} into ${b.repository} was due at ${b.due}`,
            stack: b.stack,
            severity: "warning",
          })
      for (const c of this.parts.conditions.list())
        if (c.rule === rule.id && !now.has(c.key.slice(rule.id.length + 1)))
          this.parts.conditions.end(c.key, `${c.key.slice(rule.id.length + 1)} was backed up`)
    }
  }

  async checkSwarm(): Promise<void> {
    const rules = this.of("swarm_replicas")
    if (!rules.length || !this.parts.sources.swarm) return
    const services = await this.parts.sources.swarm()
    if (!services) return
    for (const rule of rules) {
      const hold = (rule.minutes ?? DEFAULTS.replicaMinutes) * 60_000
      for (const s of services) {
        if (!covers(rule.scope, { stack: s.stack })) continue
        // The shortfall as a threshold: above 0 missing replicas for the rule's minutes.
        this.parts.conditions.observe(
          { ...rule, above: 0, below: 0 },
          `${rule.id}:${s.name}`,
          s.desired - s.running,
          hold,
          () => ({
            title: `swarm service ${s.name} runs ${s.running} of ${s.desired} replicas`,
            text:
              s.running < s.desired
                ? `${s.name}: ${s.running} of ${s.desired} replicas running`
                : `${s.name}: all ${s.desired} replicas running`,
            stack: s.stack,
            severity: "warning",
          }),
        )
      }
    }
  }

  async checkNodes(): Promise<void> {
    if (!this.of("node_offline").length || !this.parts.sources.nodes) return
    for (const n of await this.parts.sources.nodes()) this.node(n.name, n.status, n.error)
  }

  async checkDisks(): Promise<void> {
    const rules = this.of("disk")
    if (!rules.length) return
    const [data, engine] = await Promise.all([
      rules.some((r) => r.target !== "engine") ? this.parts.sources.dataDisk?.() : undefined,
      rules.some((r) => r.target === "engine") ? this.parts.sources.engineDisk?.() : undefined,
    ])
    for (const rule of rules) {
      const disk = rule.target === "engine" ? engine : data
      if (!disk || !disk.total_bytes) continue
      const pct = (disk.used_bytes / disk.total_bytes) * 100
      const which = rule.target === "engine" ? "the engine's disk" : "the data directory's disk"
      this.parts.conditions.observe(
        rule,
        `${rule.id}:${disk.path}`,
        pct,
        (rule.minutes ?? DEFAULTS.thresholdMinutes) * 60_000,
        (v) => ({
          title: `${which} is ${v.toFixed(0)}% full`,
          text: `${disk.path}: ${v.toFixed(1)}% of ${size(disk.total_bytes)} used (alert above ${rule.above}%)`,
          stack: null,
          severity: "warning",
        }),
      )
    }
  }

  /** Follows the sampler's rounds while a cpu or memory rule exists (checked each poll interval). */
  private async thresholds(signal: AbortSignal): Promise<void> {
    const want = () => this.parts.rules().some((r) => r.kind === "cpu" || r.kind === "memory")
    while (!signal.aborted) {
      if (want() && this.parts.sources.rounds) {
        const stop = new AbortController()
        const quit = () => stop.abort()
        signal.addEventListener("abort", quit, { once: true })
        const check = setInterval(() => !want() && stop.abort(), this.parts.pollMs)
        try {
          for await (const round of this.parts.sources.rounds(stop.signal)) this.round(round)
        } catch {}
        clearInterval(check)
        signal.removeEventListener("abort", quit)
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.parts.pollMs)
        signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true })
      })
    }
  }

  /** One sampler round against the cpu and memory rules. */
  round(r: RoundLike): void {
    const seen = new Set<string>()
    for (const rule of this.parts.rules()) {
      if (rule.kind !== "cpu" && rule.kind !== "memory") continue
      if (muted(rule, this.parts.now()) && !this.parts.conditions.list().some((c) => c.rule === rule.id)) continue
      const hold = (rule.minutes ?? DEFAULTS.thresholdMinutes) * 60_000
      const what = rule.kind === "cpu" ? "CPU" : "memory"
      if (rule.target === "host") {
        const value =
          rule.kind === "cpu"
            ? r.containers.reduce((n, c) => n + (c.cpu_host_percent ?? 0), 0)
            : r.host.memory_bytes
              ? (r.containers.reduce((n, c) => n + c.memory_bytes, 0) / r.host.memory_bytes) * 100
              : 0
        this.parts.conditions.observe(rule, `${rule.id}:host`, value, hold, (v) => ({
          title: `the containers use ${v.toFixed(0)}% of the host's ${what}`,
          text: `the host's ${what} in use by containers: ${v.toFixed(1)}% (alert above ${rule.above}%)`,
          stack: null,
          severity: "warning",
        }))
        continue
      }
      for (const c of r.containers) {
        if (!covers(rule.scope, { stack: c.stack })) continue
        const key = `${rule.id}:${c.name}`
        seen.add(key)
        const value = rule.kind === "cpu" ? (c.cpu_percent ?? 0) : c.memory_percent
        this.parts.conditions.observe(rule, key, value, hold, (v) => ({
          title: `container ${c.name} uses ${v.toFixed(0)}% ${what}`,
          text: `${c.name}${c.stack ? ` (stack ${c.stack})` : ""}: ${what} at ${v.toFixed(1)}% (alert above ${rule.above}%${rule.kind === "cpu" ? ", 100% is one core" : ", of its limit"})`,
          stack: c.stack,
          severity: "warning",
        }))
      }
    }
    // A container that left the rounds (stopped, removed) ends its threshold conditions.
    for (const c of this.parts.conditions.list()) {
      const rule = this.parts.rules().find((r) => r.id === c.rule)
      if (!rule || (rule.kind !== "cpu" && rule.kind !== "memory") || rule.target === "host") continue
      if (!seen.has(c.key))
        this.parts.conditions.forget(c.key, `${c.key.slice(rule.id.length + 1)} is no longer running`)
    }
  }
}
