// Delivery: each channel has its own queue of batches and its own loop, so a slow or hanging
// channel (each try has a deadline) holds up nobody else. Alerts that come while a channel is busy
// or over its rate (a bucket of RATE.burst messages, one more every RATE.everyMs) wait in its open
// batch and go out together as one grouped message. A failed try is tried again after a backoff (or
// the wait the service asked for with 429 Retry-After), up to `backoff.length + 1` tries; a refusal
// that no retry can help (a bad token) is given up at once. Giving up is visible: a history entry,
// an `alert.failed` event, a count, and the channel's status. Batches are kept in outbox.json until
// delivered or given up, so pending alerts survive a restart.
import type { Target } from "./channels.ts"
import { send, SendError, type Message, type Severity } from "./send.ts"
import type { AlertFiles, HistoryEntry } from "./store.ts"

export interface Alert {
  id: string
  rule: string | null
  rule_name: string
  state: "firing" | "resolved" | "test"
  severity: Severity
  title: string
  text: string
  stack: string | null
  time: string
}

interface Batch {
  id: string
  channel: string
  alerts: Alert[]
  attempts: number
  next_at: number
  /** Targets reached (chats, rooms) by an earlier try of this batch. */
  done: string[]
  /** Taken for a try: nothing joins it any more. */
  sealed: boolean
  last_error: string | null
}

export interface ChannelStatus {
  state: "ok" | "failing" | "unknown"
  last_success: string | null
  last_failure: string | null
  last_error: string | null
  consecutive_failures: number
  pending: number
}

export interface DispatchOptions {
  files: AlertFiles
  server: string
  /** The channel's target and name, or undefined when it was removed. */
  channel: (id: string) => Promise<{ target: Target; name: string } | undefined>
  /** The channel's kind, for its rate (undefined when it was removed). */
  kindOf: (id: string) => Target["kind"] | undefined
  events?: {
    publish(e: { type: string; action: string; name?: string; level?: "info" | "error"; message?: string }): void
  }
  now?: () => number
  fetch?: typeof fetch
  /** Waits between tries, ms. */
  backoff?: number[]
  timeoutMs?: number
  /** One rate for every channel instead of RATES (tests). */
  rate?: { burst: number; everyMs: number }
}

export const BACKOFF_MS = [2_000, 5_000, 15_000, 60_000, 300_000]
/**
 * Messages a channel of each kind takes at once (burst) and one more every `everyMs`: within what
 * each service documents for one webhook, chat or topic (Discord 5 per 2 s, Slack and Telegram about
 * one a second, ntfy.sh a burst of 60 then one per 5 s, Pushover's monthly quota), and e-mail held
 * to a few a minute. Beyond it, alerts wait and go out grouped.
 */
export const RATES: Record<Target["kind"], { burst: number; everyMs: number }> = {
  webhook: { burst: 60, everyMs: 1_000 },
  gotify: { burst: 60, everyMs: 1_000 },
  matrix: { burst: 20, everyMs: 1_000 },
  ntfy: { burst: 30, everyMs: 5_000 },
  discord: { burst: 5, everyMs: 400 },
  slack: { burst: 3, everyMs: 1_000 },
  telegram: { burst: 3, everyMs: 3_000 },
  pushover: { burst: 5, everyMs: 30_000 },
  smtp: { burst: 3, everyMs: 60_000 },
}
/** Alerts in one message at most; more wait for the next. */
const MAX_GROUP = 50
const RANK: Record<Severity, number> = { critical: 3, warning: 2, resolved: 1, info: 0 }

export class Dispatcher {
  private batches: Batch[] = []
  private readonly busy = new Set<string>()
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>()
  private readonly buckets = new Map<string, { tokens: number; at: number }>()
  private readonly status = new Map<string, Omit<ChannelStatus, "pending">>()
  private readonly inFlight = new Set<Promise<void>>()
  private readonly stopping = new AbortController()
  private saveTimer: ReturnType<typeof setTimeout> | undefined
  private seq = 0
  /** Alerts sent and given up, by rule name, channel name and result. */
  readonly counts = new Map<string, number>()

  constructor(private readonly parts: DispatchOptions) {}

  private now = () => (this.parts.now ?? Date.now)()

  /** Takes up the batches a stopped process left, and sends them. */
  async load(): Promise<void> {
    // Tried again at once: the outage may have ended with the restart (the tries made still count).
    this.batches = (await this.parts.files.read<Batch[]>("outbox.json", [])).map((b) => ({
      ...b,
      sealed: false,
      next_at: 0,
    }))
    for (const channel of new Set(this.batches.map((b) => b.channel))) this.pump(channel)
  }

  /** Queues the alert to each channel; returns at once. */
  enqueue(alert: Alert, channels: string[]): void {
    for (const channel of channels) {
      const open = this.batches.find((b) => b.channel === channel && !b.sealed && b.attempts === 0)
      if (open && open.alerts.length < MAX_GROUP) open.alerts.push(alert)
      else
        this.batches.push({
          id: `${this.now().toString(36)}-${(++this.seq).toString(36)}`,
          channel,
          alerts: [alert],
          attempts: 0,
          next_at: 0,
          done: [],
          sealed: false,
          last_error: null,
        })
      this.pump(channel)
    }
    this.save()
  }

  /** The channel's delivery status, with the alerts waiting for it. */
  channelStatus(id: string): ChannelStatus {
    const s = this.status.get(id) ?? {
      state: "unknown",
      last_success: null,
      last_failure: null,
      last_error: null,
      consecutive_failures: 0,
    }
    const pending = this.batches.filter((b) => b.channel === id).reduce((n, b) => n + b.alerts.length, 0)
    return { ...s, pending }
  }

  /** Forgets a removed channel's batches. */
  drop(channel: string): void {
    this.batches = this.batches.filter((b) => b.channel !== channel)
    clearTimeout(this.timers.get(channel))
    this.timers.delete(channel)
    this.status.delete(channel)
    this.save()
  }

  /** Sends one message now, outside the queue (a channel's test); answers the error text or null. Its result is the channel's status too. */
  async sendNow(id: string, channel: { target: Target; name: string }, alert: Alert): Promise<string | null> {
    const signal = AbortSignal.any([AbortSignal.timeout(this.parts.timeoutMs ?? 20_000), this.stopping.signal])
    let error: string | null = null
    try {
      await send(channel.target, this.message([alert], alert.id), { signal, done: new Set(), fetch: this.parts.fetch })
    } catch (err) {
      error = (err as Error).message
    }
    this.note(id, error)
    return error
  }

  /** A try's result as the channel's status. */
  private note(id: string, error: string | null): void {
    const s = this.channelStatus(id)
    const at = new Date(this.now()).toISOString()
    this.status.set(
      id,
      error === null
        ? { ...s, state: "ok", last_success: at, consecutive_failures: 0 }
        : {
            ...s,
            state: "failing",
            last_failure: at,
            last_error: error,
            consecutive_failures: s.consecutive_failures + 1,
          },
    )
  }

  /** Resolves when nothing is being sent and nothing is due within `ms` (tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight])
  }

  pending(): number {
    return this.batches.reduce((n, b) => n + b.alerts.length, 0)
  }

  stop(): void {
    this.stopping.abort()
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
    if (this.saveTimer) {
      clearTimeout(this.saveTimer)
      this.saveTimer = undefined
      this.parts.files.write("outbox.json", this.batches)
    }
  }

  private save(): void {
    if (this.saveTimer || this.stopping.signal.aborted) return
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined
      this.parts.files.write("outbox.json", this.batches)
    }, 50)
  }

  /** Takes a token of the channel's bucket, or answers how long until one comes. */
  private take(channel: string, kind: Target["kind"]): number {
    const rate = this.parts.rate ?? RATES[kind]
    const now = this.now()
    const b = this.buckets.get(channel) ?? { tokens: rate.burst, at: now }
    b.tokens = Math.min(rate.burst, b.tokens + (now - b.at) / rate.everyMs)
    b.at = now
    this.buckets.set(channel, b)
    if (b.tokens >= 1) {
      b.tokens -= 1
      return 0
    }
    return Math.ceil((1 - b.tokens) * rate.everyMs)
  }

  private later(channel: string, ms: number): void {
    clearTimeout(this.timers.get(channel))
    this.timers.set(
      channel,
      setTimeout(() => {
        this.timers.delete(channel)
        this.pump(channel)
      }, ms),
    )
  }

  /** Sends the channel's next due batch unless one is on its way; schedules itself for what waits. */
  private pump(channel: string): void {
    if (this.busy.has(channel) || this.stopping.signal.aborted) return
    const queue = this.batches.filter((b) => b.channel === channel)
    if (!queue.length) return
    const now = this.now()
    const due = queue.find((b) => b.next_at <= now)
    if (!due) return this.later(channel, Math.min(...queue.map((b) => b.next_at)) - now)
    const kind = this.parts.kindOf(channel)
    if (!kind) return void this.deliver(due) // removed meanwhile: dropped by deliver
    const wait = this.take(channel, kind)
    if (wait > 0) return this.later(channel, wait)
    due.sealed = true
    this.busy.add(channel)
    const p = this.deliver(due).finally(() => {
      this.inFlight.delete(p)
      this.busy.delete(channel)
      this.pump(channel)
    })
    this.inFlight.add(p)
  }

  private message(alerts: Alert[], id: string): Message {
    const server = this.parts.server
    const severity = alerts.reduce<Severity>((s, a) => (RANK[a.severity] > RANK[s] ? a.severity : s), "info")
    const one = alerts.length === 1 ? alerts[0]! : undefined
    const firing = alerts.filter((a) => a.state === "firing").length
    const title = one
      ? one.title
      : `${alerts.length} alerts on ${server}${firing && firing < alerts.length ? ` (${firing} firing, ${alerts.length - firing} resolved)` : ""}`
    const text = one ? one.text : alerts.map((a) => `• ${a.title}: ${a.text}`).join("\n")
    return {
      id,
      title,
      text,
      severity,
      server,
      time: new Date(this.now()).toISOString(),
      alerts: alerts.map(({ rule_name, state, severity: s, title: t, text: x, stack, time }) => ({
        rule: rule_name,
        state,
        severity: s,
        title: t,
        message: x,
        stack,
        time,
      })),
    }
  }

  private async deliver(b: Batch): Promise<void> {
    const channel = await this.parts.channel(b.channel)
    if (!channel) {
      this.batches = this.batches.filter((x) => x !== b)
      return this.save()
    }
    b.attempts++
    const done = new Set(b.done)
    const signal = AbortSignal.any([AbortSignal.timeout(this.parts.timeoutMs ?? 20_000), this.stopping.signal])
    let failure: SendError | undefined
    try {
      await send(channel.target, this.message(b.alerts, b.id), { signal, done, fetch: this.parts.fetch })
    } catch (err) {
      failure = err as SendError
    }
    if (this.stopping.signal.aborted) return // kept in the outbox: tried again after the restart
    this.note(b.channel, failure ? failure.message : null)
    if (!failure) return this.finish(b, channel.name, "sent", null)
    b.done = [...done]
    b.last_error = failure.message
    const backoff = this.parts.backoff ?? BACKOFF_MS
    if (failure.permanent || b.attempts > backoff.length) return this.finish(b, channel.name, "failed", failure.message)
    // The wait the service asked for (429 Retry-After) when it said one, else the backoff.
    const wait = Math.min(
      3_600_000,
      failure.retryAfter !== undefined ? failure.retryAfter * 1000 : backoff[b.attempts - 1]!,
    )
    b.next_at = this.now() + wait
    b.sealed = false
    this.save()
  }

  private finish(b: Batch, channelName: string, result: "sent" | "failed", error: string | null): void {
    this.batches = this.batches.filter((x) => x !== b)
    this.save()
    const entries: Omit<HistoryEntry, "seq">[] = b.alerts.map((a) => ({
      time: new Date(this.now()).toISOString(),
      rule: a.rule,
      rule_name: a.rule_name,
      channel: b.channel,
      channel_name: channelName,
      state: a.state,
      result,
      attempts: b.attempts,
      grouped: b.alerts.length,
      title: a.title,
      stack: a.stack,
      error,
    }))
    this.parts.files.append(entries)
    for (const a of b.alerts) {
      const key = `${a.rule_name}\u0000${channelName}\u0000${result}`
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
    }
    if (result === "failed")
      this.parts.events?.publish({
        type: "alert",
        action: "failed",
        name: channelName,
        level: "error",
        message: `${b.alerts.length === 1 ? `alert "${b.alerts[0]!.title}"` : `${b.alerts.length} alerts`} to channel ${channelName} not delivered after ${b.attempts} ${b.attempts === 1 ? "try" : "tries"}: ${error}`,
      })
  }
}
