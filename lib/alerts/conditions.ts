// Conditions: what a rule saw and has not seen end. A condition is raised once and sends one
// alert; while it lasts, the same signal only counts (a restart loop is one alert with a count).
// It ends when its good signal holds for its hold time (a container running again for a while, a
// threshold back under its lower mark for the rule's minutes), and then sends one recovery, if
// the firing was sent. A muted rule's conditions are followed the same way and send nothing, their
// recovery neither. Thresholds first have to stay above their mark for the rule's minutes.
// Raised conditions are kept in state.json, so a restart neither sends them again nor forgets to
// send their recovery.
import type { Severity } from "./send.ts"
import { muted, type Rule } from "./rules.ts"

export interface Condition {
  key: string
  rule: string
  title: string
  stack: string | null
  since: string
  /** How many times its signal came while it lasted. */
  count: number
  /** Whether its firing went out (not when the rule was muted). */
  sent: boolean
}

export interface Raise {
  title: string
  text: string
  stack: string | null
  severity?: Severity
}

/** What conditions need of the rest: the rules, and sending an alert to a rule's channels. */
export interface ConditionHost {
  rule(id: string): Rule | undefined
  emit(rule: Rule, state: "firing" | "resolved", r: Raise): void
  now(): number
  save(conditions: Condition[]): void
}

export class Conditions {
  private readonly active = new Map<string, Condition>()
  private readonly clearing = new Map<string, ReturnType<typeof setTimeout>>()
  /** Thresholds above their mark (since when), not yet raised. */
  private readonly above = new Map<string, number>()
  /** Thresholds at or below their lower mark (since when), still raised. */
  private readonly below = new Map<string, number>()

  constructor(private readonly host: ConditionHost) {}

  load(saved: Condition[]): void {
    for (const c of saved) this.active.set(c.key, c)
  }

  list(): Condition[] {
    return [...this.active.values()]
  }

  has(key: string): boolean {
    return this.active.has(key)
  }

  /** The condition's signal: raised (and sent) the first time, counted after. Answers its count. */
  raise(rule: Rule, key: string, r: Raise, count = 1): number {
    this.stopClearing(key)
    const c = this.active.get(key)
    if (c) {
      c.count = Math.max(c.count + 1, count)
      return c.count
    }
    const sent = !muted(rule, this.host.now())
    this.active.set(key, {
      key,
      rule: rule.id,
      title: r.title,
      stack: r.stack,
      since: new Date(this.host.now()).toISOString(),
      count,
      sent,
    })
    // Sent first: the record of it is written right after, off the alert's way.
    if (sent) this.host.emit(rule, "firing", r)
    this.persist()
    return count
  }

  /** The good signal: the condition ends after `holdMs` unless it is raised again meanwhile. */
  settle(key: string, holdMs: number, text: string): void {
    if (!this.active.has(key) || this.clearing.has(key)) return
    if (holdMs <= 0) return this.end(key, text)
    this.clearing.set(
      key,
      setTimeout(() => {
        this.clearing.delete(key)
        this.end(key, text)
      }, holdMs),
    )
  }

  /** Ends the condition now, sending its recovery when its firing went out and the rule asks for one. */
  end(key: string, text: string): void {
    this.stopClearing(key)
    const c = this.active.get(key)
    if (!c) return
    this.active.delete(key)
    const rule = this.host.rule(c.rule)
    if (rule && c.sent && rule.recovery && !muted(rule, this.host.now()))
      this.host.emit(rule, "resolved", {
        title: `resolved: ${c.title}`,
        text,
        stack: c.stack,
        severity: "resolved",
      })
    this.persist()
  }

  /**
   * A threshold's reading: raised once it stayed above `rule.above` for `holdMs`; ended once it
   * stayed at or below its lower mark for `holdMs` (between the two marks nothing changes).
   */
  observe(rule: Rule, key: string, value: number, holdMs: number, r: (value: number) => Raise): void {
    const now = this.host.now()
    const high = rule.above ?? 100
    const low = rule.below ?? high - 5
    if (value > high) {
      this.below.delete(key)
      if (this.active.has(key)) return
      const since = this.above.get(key) ?? now
      this.above.set(key, since)
      if (now - since >= holdMs) {
        this.above.delete(key)
        this.raise(rule, key, r(value))
      }
      return
    }
    this.above.delete(key)
    if (!this.active.has(key)) return
    if (value > low) {
      this.below.delete(key)
      return
    }
    const since = this.below.get(key) ?? now
    this.below.set(key, since)
    if (now - since >= holdMs) {
      this.below.delete(key)
      this.end(key, r(value).text)
    }
  }

  /** A key no longer seen (a container gone): ends its condition, and forgets its threshold readings. */
  forget(key: string, text: string): void {
    this.above.delete(key)
    this.below.delete(key)
    this.end(key, text)
  }

  /** Drops the conditions of a removed rule, sending nothing. */
  dropRule(rule: string): void {
    for (const [key, c] of this.active)
      if (c.rule === rule) {
        this.stopClearing(key)
        this.active.delete(key)
      }
    for (const m of [this.above, this.below]) for (const key of m.keys()) if (key.startsWith(`${rule}:`)) m.delete(key)
    this.persist()
  }

  stop(): void {
    for (const t of this.clearing.values()) clearTimeout(t)
    this.clearing.clear()
    this.persist(true)
  }

  private stopClearing(key: string): void {
    const t = this.clearing.get(key)
    if (t) clearTimeout(t)
    this.clearing.delete(key)
  }

  private saveTimer: ReturnType<typeof setTimeout> | undefined

  /** Writes the raised conditions soon (many changes at once are one write), and at once when stopping. */
  private persist(now = false): void {
    if (now) {
      if (!this.saveTimer) return
      clearTimeout(this.saveTimer)
      this.saveTimer = undefined
      return this.host.save(this.list())
    }
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined
      this.host.save(this.list())
    }, 50)
  }
}
