// Notifications: owns sending what happened to the addresses in SVC_NOTIFY_URLS. Two forms:
//   https://host/path              a generic webhook: POST, Content-Type application/json, the body below
//   ntfy+https://host/topic        ntfy's plain publish: POST https://host/topic, the message as the
//   (ntfy://host/topic = https)    body, Title / Tags / Priority headers
// JSON body: {event, time, server, stack, verdict, reason, images: [{service, ref, from, to}], message}
// (absent fields are null). Events: update_available, updated, rolled_back, rollback_failed,
// copy_failed, scan_found_critical, mount_refused, backup_failed.
//
// Sending never blocks the operation that notifies: `notify` queues and returns. Each address is
// tried up to four times with backoff (1 s, 2 s, 4 s by default, each try 5 s at most); a message
// that could not be delivered is an event (`notify.failed`) and a count (`failed`), never an error
// of the operation. Nothing secret goes out: messages are built from reasons already redacted, never
// from a stack's environment; and an address (which may carry a token in its path) appears in
// events and errors only as its origin.
import type { EventBus, ServiceEvent } from "../engine/events.ts"
import type { ImageChange } from "./records.ts"

export const NOTIFY_EVENTS = [
  "update_available",
  "updated",
  "rolled_back",
  "rollback_failed",
  "copy_failed",
  "node_offline",
  "scan_found_critical",
  "mount_refused",
  "backup_failed",
] as const
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number]

export interface Notification {
  event: NotifyEvent
  stack?: string | null
  verdict?: string | null
  reason?: string | null
  images?: Pick<ImageChange, "service" | "ref" | "from" | "to">[]
  message: string
}

export interface NotifyTarget {
  kind: "webhook" | "ntfy"
  url: string
  /** What events and errors may show of the address. */
  origin: string
}

/** Reads one SVC_NOTIFY_URLS entry; throws on anything else than http(s) (plain or ntfy+). */
export function parseTarget(raw: string): NotifyTarget {
  const ntfy = /^ntfy(\+https?)?:\/\//i.exec(raw)
  const url = ntfy ? (ntfy[1] ? raw.slice(5) : `https://${raw.slice(ntfy[0].length)}`) : raw
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`"${raw.slice(0, 40)}…" is not a URL`)
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new Error(`${parsed.protocol} is not http or https`)
  return { kind: ntfy ? "ntfy" : "webhook", url: parsed.href, origin: parsed.origin }
}

const TAGS: Record<NotifyEvent, string> = {
  update_available: "package",
  updated: "white_check_mark",
  rolled_back: "rewind",
  rollback_failed: "rotating_light",
  copy_failed: "x",
  node_offline: "warning",
  scan_found_critical: "rotating_light",
  mount_refused: "no_entry",
  backup_failed: "floppy_disk",
}

export interface NotifierOptions {
  serverId: string
  events?: EventBus
  /** Delays between tries, ms (default 1000, 2000, 4000). */
  backoff?: number[]
  timeoutMs?: number
  fetch?: typeof fetch
  now?: () => number
}

export class Notifier {
  readonly targets: NotifyTarget[]
  /** Messages delivered and given up, per address kind and event. */
  readonly counts = { sent: 0, failed: 0 }
  private pending = new Set<Promise<void>>()
  private readonly taps: ((n: Notification) => void)[] = []

  private readonly serverId: string
  private readonly events: EventBus | undefined
  private readonly backoff: number[]
  private readonly timeoutMs: number
  private readonly fetch: typeof fetch
  private readonly now: () => number

  constructor(urls: string[], o: NotifierOptions) {
    this.targets = urls.map(parseTarget)
    this.serverId = o.serverId
    this.events = o.events
    this.backoff = o.backoff ?? [1000, 2000, 4000]
    this.timeoutMs = o.timeoutMs ?? 5000
    this.fetch = o.fetch ?? fetch
    this.now = o.now ?? Date.now
  }

  /** Hands every notification to `fn` too (the alert rules), whether or not SVC_NOTIFY_URLS names an address. */
  tap(fn: (n: Notification) => void): void {
    this.taps.push(fn)
  }

  /** Queues the notification to every address; returns at once. */
  notify(n: Notification): void {
    for (const fn of this.taps) fn(n)
    if (!this.targets.length) return
    const body = {
      event: n.event,
      time: new Date(this.now()).toISOString(),
      server: this.serverId,
      stack: n.stack ?? null,
      verdict: n.verdict ?? null,
      reason: n.reason ?? null,
      images: (n.images ?? []).map(({ service, ref, from, to }) => ({ service, ref, from, to })),
      message: n.message,
    }
    for (const t of this.targets) {
      const p = this.deliver(t, body).finally(() => this.pending.delete(p))
      this.pending.add(p)
    }
  }

  /** Resolves when every queued message has been delivered or given up (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending])
  }

  private request(
    t: NotifyTarget,
    body: Record<string, unknown> & { event: NotifyEvent; message: string; stack: string | null },
  ): RequestInit {
    const signal = AbortSignal.timeout(this.timeoutMs)
    if (t.kind === "webhook")
      return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal }
    const title = `Harbormaster: ${body.event.replace(/_/g, " ")}${body.stack ? ` (${body.stack})` : ""}`
    const urgent =
      body.event === "rollback_failed" ||
      body.event === "scan_found_critical" ||
      body.event === "mount_refused" ||
      body.event === "backup_failed"
    return {
      method: "POST",
      headers: { title, tags: TAGS[body.event], priority: urgent ? "high" : "default" },
      body: body.message,
      signal,
    }
  }

  private async deliver(t: NotifyTarget, body: Parameters<Notifier["request"]>[1]): Promise<void> {
    const doFetch = this.fetch
    const delays = this.backoff
    let why = ""
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt) await Bun.sleep(delays[attempt - 1]!)
      try {
        const res = await doFetch(t.url, this.request(t, body))
        await res.arrayBuffer().catch(() => {})
        if (res.ok) {
          this.counts.sent++
          return
        }
        why = `answered ${res.status}`
      } catch (err) {
        why = err instanceof Error && err.name === "TimeoutError" ? "no answer in time" : "unreachable"
      }
    }
    this.counts.failed++
    this.events?.publish({
      type: "notify",
      action: "failed",
      name: body.stack ?? undefined,
      level: "error",
      message: `notification ${body.event} to ${t.origin} (${t.kind}) not delivered after ${delays.length + 1} tries: ${why}`,
    })
  }

  /**
   * Notifications from what others publish on the bus, where that is cheap: a copy that failed
   * (`copy_undo_failed`), a node a probe found offline, a scan that found critical vulnerabilities
   * (`critical` asked of the scan's stored counts), a container taken down for a bind that reached
   * outside its stack's paths, a backup or a repository's `restic check` that failed.
   */
  async follow(events: EventBus, signal: AbortSignal, critical: (image: string) => Promise<number>): Promise<void> {
    for await (const e of events.subscribe(signal)) {
      if (e.source !== "service") continue
      const n = await this.fromEvent(e, critical).catch(() => undefined)
      if (n) this.notify(n)
    }
  }

  private async fromEvent(
    e: ServiceEvent,
    critical: (image: string) => Promise<number>,
  ): Promise<Notification | undefined> {
    if (e.type === "stack" && (e.action === "copy_undo_failed" || e.action === "copy_failed"))
      return { event: "copy_failed", stack: e.name ?? null, message: e.message ?? "a copy failed" }
    if (e.type === "stack" && e.action === "mount_refused")
      return { event: "mount_refused", stack: e.name ?? null, message: e.message ?? "a bind reached outside its stack" }
    if (e.type === "backup" && (e.action === "backup_failed" || e.action === "check_failed"))
      return {
        event: "backup_failed",
        stack: e.action === "backup_failed" ? (e.name ?? null) : null,
        message: e.message ?? "a backup failed",
      }
    if (e.type === "node" && e.action === "offline")
      return { event: "node_offline", message: e.message ?? `node ${e.name} is offline` }
    if (e.type === "image" && e.action === "scan" && e.id) {
      const n = await critical(e.id)
      if (n > 0)
        return {
          event: "scan_found_critical",
          message: `scan of ${e.name ?? e.id}: ${n} critical vulnerabilit${n === 1 ? "y" : "ies"}`,
        }
    }
    return undefined
  }
}
