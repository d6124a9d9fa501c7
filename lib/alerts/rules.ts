// What a rule watches, its parameters with their defaults, and what it covers (its scope).
export const RULE_KINDS = [
  "container_died",
  "container_oom",
  "container_unhealthy",
  "restart_loop",
  "stack_degraded",
  "event",
  "backup_overdue",
  "node_offline",
  "swarm_replicas",
  "cpu",
  "memory",
  "disk",
] as const
export type RuleKind = (typeof RULE_KINDS)[number]

/** The events that already notify (lib/updates/notify.ts) that an `event` rule may name. */
export const EVENT_NAMES = [
  "update_available",
  "updated",
  "rolled_back",
  "rollback_failed",
  "scan_found_critical",
  "mount_refused",
  "backup_failed",
  "copy_failed",
] as const

export interface Scope {
  /** Stacks by name (all when absent). */
  stacks?: string[]
  /** Container labels, `key` or `key=value` (any when absent). */
  labels?: string[]
  /**
   * Registered nodes: those a node rule watches (all when absent); for a container rule on a control
   * plane, the nodes whose containers it watches besides this server's (`*` for all).
   */
  nodes?: string[]
}

export interface Rule {
  id: string
  name: string
  kind: RuleKind
  /** The channels (ids) it sends to. */
  channels: string[]
  scope: Scope
  /** restart_loop: this many restarts within `minutes`. */
  restarts?: number
  /** restart_loop's window; thresholds and swarm_replicas: how long the condition must last (and the recovery too). */
  minutes?: number
  /** event: which of EVENT_NAMES (all when absent). */
  events?: string[]
  /** cpu and memory: a container's or the host's; disk: the data directory's or the engine's. */
  target?: "container" | "host" | "data" | "engine"
  /** Thresholds in percent: fires above `above`, recovers at or below `below` (default `above` - 5). */
  above?: number
  below?: number
  /** Send a message when the condition ends (default true). */
  recovery: boolean
  /** Sends nothing until then (ISO time), or null. */
  muted_until: string | null
  created: string
  updated: string
}

export const DEFAULTS = {
  restarts: 3,
  loopMinutes: 5,
  thresholdMinutes: 5,
  replicaMinutes: 1,
  hysteresis: 5,
}

/** What a rule's condition is about: the stack, labels and node of a container, or only a stack or a node. */
export interface Subject {
  stack?: string | null
  labels?: Record<string, string>
  node?: string | null
  /** A container of a node (its events followed by this control plane): covered only by rules naming the node. */
  remote?: boolean
}

/**
 * Whether a rule covers the subject (a scope part the subject does not have never excludes it); a
 * node's container only when the scope names its node.
 */
export function covers(scope: Scope, s: Subject): boolean {
  if (scope.stacks?.length && (s.stack === undefined || !scope.stacks.includes(s.stack ?? ""))) return false
  if (scope.labels?.length) {
    if (!s.labels) return false
    const ok = scope.labels.some((l) => {
      const eq = l.indexOf("=")
      return eq === -1 ? l in s.labels! : s.labels![l.slice(0, eq)] === l.slice(eq + 1)
    })
    if (!ok) return false
  }
  if (s.node === undefined || s.node === null) return true
  return scope.nodes?.length ? scope.nodes.includes(s.node) || scope.nodes.includes("*") : !s.remote
}

export const muted = (r: Rule, now: number) => r.muted_until !== null && Date.parse(r.muted_until) > now

/** A rule's words for a person: what it watches. */
export function describe(r: Rule): string {
  const pct = (n?: number) => `${n}%`
  const mins = (n: number) => `${n} minute${n === 1 ? "" : "s"}`
  switch (r.kind) {
    case "container_died":
      return "a container exited with a non-zero code"
    case "container_oom":
      return "a container was killed for memory"
    case "container_unhealthy":
      return "a container's healthcheck failed"
    case "restart_loop":
      return `a container restarted ${r.restarts ?? DEFAULTS.restarts} times within ${mins(r.minutes ?? DEFAULTS.loopMinutes)}`
    case "stack_degraded":
      return "a stack is degraded, or stopped when it should run"
    case "event":
      return `events: ${(r.events?.length ? r.events : EVENT_NAMES).join(", ")}`
    case "backup_overdue":
      return "a scheduled backup is overdue"
    case "node_offline":
      return "a node is offline"
    case "swarm_replicas":
      return `a swarm service runs fewer replicas than it wants for ${mins(r.minutes ?? DEFAULTS.replicaMinutes)}`
    default:
      return `${r.target === "host" ? "the host's" : r.target === "engine" ? "the engine's" : r.target === "data" ? "the data directory's" : "a container's"} ${r.kind} above ${pct(r.above)} for ${mins(r.minutes ?? DEFAULTS.thresholdMinutes)}`
  }
}
