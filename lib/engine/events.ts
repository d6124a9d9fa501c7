// The event bus: one long-lived subscription to the engine's event stream, the service's own events
// beside it, the last 100 kept for history, and a bounded queue per subscriber. An engine event about
// an object of a compose project (its `com.docker.compose.project` label) is redacted as it arrives,
// before history or any subscriber sees it: what follows the action's verb (an exec's command) and
// the attributes' values, compose's own labels kept.
import { setTimeout as pause } from "node:timers/promises"
import type { Engine, EngineEvent } from "./client.ts"
import { shownFor, shownLabels, type Redactor } from "./containers.ts"
import { Fanout } from "./fanout.ts"

export interface ServiceEvent {
  seq: number
  time: string
  source: "engine" | "service"
  type: string
  action: string
  id?: string
  name?: string
  attributes?: Record<string, string>
  message?: string
  level?: "info" | "error"
}

export type NewEvent = Omit<ServiceEvent, "seq" | "time" | "source"> & { time?: string }

export const HISTORY_LIMIT = 100
const QUEUE_LIMIT = 1000

/** An action's verb is the engine's own (`start`, `exec_create`): only what follows it (`exec_create: <command>`) is shown through `shown`. */
function shownAction(action: string, shown: (text: string) => string): string {
  const verb = action.indexOf(": ")
  return verb === -1 ? action : action.slice(0, verb + 2) + shown(action.slice(verb + 2))
}

export function fromEngine(e: EngineEvent, redactor?: Redactor): Omit<ServiceEvent, "seq"> {
  const shown = shownFor(e.Actor?.Attributes, redactor)
  const { name, ...attributes } = shownLabels(e.Actor?.Attributes ?? {}, shown)
  return {
    time: new Date(Math.floor((e.timeNano ?? e.time * 1e9) / 1e6)).toISOString(),
    source: "engine",
    type: e.Type,
    action: shownAction(e.Action, shown),
    id: e.Actor?.ID,
    name,
    attributes,
  }
}

export class EventBus {
  private seq = 0
  private ring: ServiceEvent[] = []
  private subscribers = new Fanout<ServiceEvent>(QUEUE_LIMIT)
  lastEngineEventAt: number | undefined

  /** `redactor`: how events about a compose project's objects are shown (none: as the engine sent them). */
  constructor(private redactor?: Redactor) {}

  history(): ServiceEvent[] {
    return [...this.ring]
  }

  get subscriberCount(): number {
    return this.subscribers.size
  }

  /** Publishes a service event (compose output, copy failures, ...). */
  publish(e: NewEvent): ServiceEvent {
    return this.add({ ...e, time: e.time ?? new Date().toISOString(), source: "service" })
  }

  /** An event is frozen once numbered: every subscriber gets the same object, and its SSE message is written once. */
  private add(e: Omit<ServiceEvent, "seq">): ServiceEvent {
    if (e.attributes) Object.freeze(e.attributes)
    const event = Object.freeze({ seq: ++this.seq, ...e })
    this.ring.push(event)
    if (this.ring.length > HISTORY_LIMIT) this.ring.shift()
    this.subscribers.publish(event)
    return event
  }

  /** Live events until the signal aborts. A subscriber that falls QUEUE_LIMIT events behind is dropped. */
  subscribe(signal: AbortSignal): AsyncGenerator<ServiceEvent> {
    return this.subscribers.subscribe(signal)
  }

  /**
   * Follows the engine's events until the signal aborts, reconnecting with backoff. The history is
   * seeded with the last hour of engine events; after a reconnect, events missed meanwhile are replayed.
   */
  async follow(engine: Engine, signal: AbortSignal, now = () => Date.now()): Promise<void> {
    let since = Math.floor(now() / 1000) - 3600
    const seen = new Set<string>()
    let delay = 250
    while (!signal.aborted) {
      try {
        for await (const e of engine.events({ since, signal })) {
          delay = 250
          const key = `${e.timeNano}:${e.Actor?.ID}:${e.Action}`
          if (seen.has(key)) continue
          if (seen.size >= 10_000) seen.clear()
          seen.add(key)
          since = e.time
          this.lastEngineEventAt = now()
          this.add(fromEngine(e, this.redactor))
        }
      } catch {
        if (signal.aborted) break
      }
      // The backoff ends early when the signal aborts, so a stopping service does not wait for it.
      await pause(delay, undefined, { signal }).catch(() => {})
      delay = Math.min(delay * 2, 5000)
    }
  }
}
