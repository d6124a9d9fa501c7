// The policy scheduler: owns running each stack's update policy within its schedule. Once a second
// it looks for stacks whose policy is due (an interval or cron schedule counted from the last run,
// else from when the policy was set; a policy without a schedule follows SVC_UPDATE_INTERVAL) and
// takes them one at a time: the stack's images are checked against their registries (recorded as
// a check-update would), and when one has a newer digest:
//   notify  update_available is sent, once per new digest;
//   apply   the guarded update runs (lib/updates/guard.ts) with the policy's watch. A digest that an
//           automatic update rolled back is not applied again automatically (update_available is
//           sent once instead); a newer push under the tag is tried again.
import { setTimeout as pause } from "node:timers/promises"
import type { Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import { stackImageRefs } from "../stacks/images.ts"
import type { Stacks } from "../stacks/store.ts"
import type { ImageUpdates } from "../images/update-checks.ts"
import type { UpdateGuard } from "./guard.ts"
import type { Notifier } from "./notify.ts"
import { nextDue, type UpdateRecords } from "./records.ts"

export interface SchedulerOptions {
  stacks: Stacks
  engine: Engine
  imageUpdates: ImageUpdates
  records: UpdateRecords
  guard: UpdateGuard
  notifier: Notifier
  events: EventBus
  /** SVC_UPDATE_INTERVAL (seconds, 0: none): the schedule of a policy that names none. */
  interval: number
  tickMs?: number
  now?: () => number
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

export class PolicyScheduler {
  private readonly now: () => number
  private readonly tickMs: SchedulerOptions["tickMs"]
  private readonly stacks: SchedulerOptions["stacks"]
  private readonly records: SchedulerOptions["records"]
  private readonly guard: SchedulerOptions["guard"]
  private readonly interval: SchedulerOptions["interval"]
  private readonly events: SchedulerOptions["events"]
  private readonly imageUpdates: SchedulerOptions["imageUpdates"]
  private readonly engine: SchedulerOptions["engine"]
  private readonly notifier: SchedulerOptions["notifier"]

  constructor(o: SchedulerOptions) {
    this.now = o.now ?? Date.now
    this.tickMs = o.tickMs
    this.stacks = o.stacks
    this.records = o.records
    this.guard = o.guard
    this.interval = o.interval
    this.events = o.events
    this.imageUpdates = o.imageUpdates
    this.engine = o.engine
    this.notifier = o.notifier
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.tick().catch((err) => console.error("update policies:", message(err)))
      await pause(this.tickMs ?? 1000, undefined, { signal }).catch(() => {})
    }
  }

  /** Runs every stack whose policy is due, one after another. */
  async tick(): Promise<string[]> {
    const ran: string[] = []
    for (const name of this.stacks.names()) {
      const { policy, state } = await this.records.policyFile(name)
      if (policy.auto_update === "off" || this.guard.busy(name)) continue
      const schedule = policy.schedule ?? (this.interval > 0 ? `${this.interval}s` : null)
      if (!schedule) continue
      const from = Date.parse(state.last_run ?? state.set_at ?? new Date(this.now()).toISOString())
      const due = nextDue(schedule, from)
      if (due === null || due > this.now()) continue
      await this.runStack(name).catch((err) =>
        this.events.publish({
          type: "stack",
          action: "policy.failed",
          name,
          level: "error",
          message: `update policy of ${name}: ${message(err)}`,
        }),
      )
      ran.push(name)
    }
    return ran
  }

  /** One run of a stack's policy now. */
  async runStack(name: string): Promise<void> {
    const { records, notifier } = this
    await records.updateState(name, (s) => void (s.last_run = new Date(this.now()).toISOString()))
    const { policy, state } = await records.policyFile(name)
    const results = await this.imageUpdates.checkAll(await stackImageRefs(this.stacks, this.engine, name), name)
    const newer = results.filter((r) => r.update_available && r.remote_digest)
    if (!newer.length) return
    const announce = (list: typeof newer, note = "") => {
      const fresh = list.filter((r) => state.notified[r.ref] !== r.remote_digest)
      if (!fresh.length) return Promise.resolve()
      notifier.notify({
        event: "update_available",
        stack: name,
        images: fresh.map((r) => ({
          service: "",
          ref: r.ref,
          from: r.local_digests[0] ?? r.image ?? "",
          to: r.remote_digest,
        })),
        message: `${name}: a newer image is available for ${fresh.map((r) => r.ref).join(", ")}${note}`,
      })
      this.events.publish({
        type: "stack",
        action: "update.available",
        name,
        message: `newer image for ${fresh.map((r) => r.ref).join(", ")}${note}`,
      })
      return records.updateState(name, (s) => {
        for (const r of fresh) s.notified[r.ref] = r.remote_digest!
      })
    }
    if (policy.auto_update === "notify") return announce(newer)
    const applicable = newer.filter((r) => state.rejected[r.ref] !== r.remote_digest)
    if (!applicable.length) return announce(newer, " (rolled back before: not applied again automatically)")
    const outcome = await this.guard.update(name, { watch: policy.watch ?? undefined, trigger: "policy" })
    if (outcome.verdict === "rolled_back" || outcome.verdict === "rollback_failed")
      await records.updateState(name, (s) => {
        for (const r of newer) s.rejected[r.ref] = r.remote_digest!
      })
  }
}
