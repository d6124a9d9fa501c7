// Guarded updates: owns the orchestration pin → change → watch → (rollback → watch) → verdict, its
// events, the stack's record, the counts by verdict and the notifications. Whatever differs between
// the orchestrators is asked of the stack's (lib/stacks/orchestrator.ts): what it pins, what moved,
// the watch and the way back.
//
// An update pins what runs and pulls under the stack's lock, and compares: when no service's image
// moved, the verdict is `unchanged` and nothing is brought up (nothing restarts). Otherwise the stack
// is brought up without pulling again (unless the orchestrator's pull brought it up: a swarm resolves
// and deploys in one) and watched. A failed watch (or a failed `up`, or a change whose orchestrator
// says what it brought up did not run) rolls back: the orchestrator brings back what ran at the pin
// (compose points each moved tag at its pinned image again, and the same records are brought up as
// they are, changed ones redeployed as the pinned version; a swarm rolls an update's services back
// itself and redeploys the pinned version after any other change), and that is watched too.
// Verdicts: updated, rolled_back (with the reason), rollback_failed (with the reason and what to fix
// by hand), unchanged. A deploy, apply or rollback asked to be watched goes through the same path
// with its own change.
//
// One guarded operation per stack at a time (a second is 409 update_in_progress); the stack store's
// own lock still orders each call of the orchestrator with the rest of the service.
import type { EventBus } from "../engine/events.ts"
import { conflict } from "../errors/errors.ts"
import { redact, sameEnv, secretValues } from "../stacks/env.ts"
import { sameFiles } from "../stacks/files.ts"
import { errorMessage, type Orchestrator, type OrchestratorName, type Pinned } from "../stacks/orchestrator.ts"
import type { Stack, Stacks } from "../stacks/store.ts"
import type { Notifier } from "./notify.ts"
import type { UpdateOutcome, UpdateRecords, Verdict } from "./records.ts"

export interface GuardOptions {
  stacks: Stacks
  events: EventBus
  records: UpdateRecords
  notifier: Notifier
  /** SVC_UPDATE_WATCH: seconds of watch when the caller names none. */
  watch: number
  maxRestarts?: number
  pollMs?: number
  now?: () => number
}

export interface GuardRun {
  watch?: number
  /** What runs a stack the change creates (an existing stack's own is read from it). */
  orchestrator?: OrchestratorName
  trigger?: UpdateOutcome["trigger"]
}

/** One guarded operation: the stack, what is done, and the change itself. */
interface Guarded {
  name: string
  action: UpdateOutcome["action"]
  run: GuardRun
  /** "pulled" when the guard is still to bring the stack up with the new images, "up" when the change did. */
  change: () => Promise<"pulled" | "up">
  /** Compare the images before bringing anything up (an update: nothing moved is `unchanged`). */
  compareFirst: boolean
}

/** What a verdict adds to the outcome's start. */
interface Verdicts {
  verdict: Verdict
  reason?: string | null
  fix?: string | null
  early: boolean
}

export class UpdateGuard {
  readonly counts: Record<Verdict, number> = { updated: 0, rolled_back: 0, rollback_failed: 0, unchanged: 0 }
  private running = new Set<string>()
  private readonly stacks: Stacks
  private readonly events: EventBus
  private readonly records: UpdateRecords
  private readonly notifier: Notifier
  /** Seconds of watch when the caller names none. */
  private readonly window: number
  private readonly maxRestarts: number | undefined
  private readonly pollMs: number | undefined
  private readonly now: () => number

  constructor(o: GuardOptions) {
    this.stacks = o.stacks
    this.events = o.events
    this.records = o.records
    this.notifier = o.notifier
    this.window = o.watch
    this.maxRestarts = o.maxRestarts
    this.pollMs = o.pollMs
    this.now = o.now ?? Date.now
  }

  /** Whether a guarded operation runs on the stack now. */
  busy(name: string): boolean {
    return this.running.has(name)
  }

  /** Pull, and when an image moved: up, watch, and roll back on failure. */
  update(name: string, run: GuardRun = {}): Promise<UpdateOutcome> {
    return this.guarded({ name, action: "update", run, change: () => this.stacks.pull(name), compareFirst: true })
  }

  /** A deploy, apply or rollback (`change`), watched; rolled back to the pinned state when the watch fails. */
  watched(
    name: string,
    action: "deploy" | "apply" | "rollback",
    run: GuardRun,
    change: () => Promise<unknown>,
  ): Promise<UpdateOutcome> {
    return this.guarded({
      name,
      action,
      run,
      change: async () => {
        await change()
        return "up"
      },
      compareFirst: false,
    })
  }

  private async guarded(g: Guarded): Promise<UpdateOutcome> {
    const { name } = g
    if (this.running.has(name)) throw conflict(`an update of ${name} is already running`, "update_in_progress")
    this.running.add(name)
    const held: { pin?: Pinned; orchestrator?: Orchestrator } = {}
    try {
      const outcome = await this.perform(g, held)
      // After rollback_failed what the pin holds stays: the fix by hand can use it (tag from the held names).
      if (held.pin && outcome.verdict !== "rollback_failed") await held.orchestrator!.release(held.pin)
      return outcome
    } catch (err) {
      if (held.pin) await held.orchestrator!.release(held.pin)
      throw err
    } finally {
      this.running.delete(name)
    }
  }

  private publish(
    name: string,
    action: string,
    text: string,
    more: { level?: "info" | "error"; attributes?: Record<string, string> } = {},
  ) {
    const { level = "info", attributes } = more
    this.events.publish({ type: "stack", action, name, level, message: text, ...(attributes ? { attributes } : {}) })
  }

  private async perform(g: Guarded, held: { pin?: Pinned; orchestrator?: Orchestrator }): Promise<UpdateOutcome> {
    const { name, action, run } = g
    const existing = this.stacks.has(name) ? await this.stacks.read(name) : undefined
    const orchestrator = this.stacks.orchestratorOf(existing?.state ?? run.orchestrator)
    const started = this.now()
    const window = run.watch ?? this.window
    const pin = existing ? await orchestrator.pin(name, await this.recorded(existing)) : undefined
    Object.assign(held, { pin, orchestrator })
    if (pin)
      this.publish(
        name,
        "update.pinned",
        `pinned ${pin.images.map((i) => `${i.service}=${i.image}`).join(", ") || "no running service"} (version ${pin.version ?? "none"})`,
      )
    const secrets = () => this.secretsOf(name, pin)
    let failure: string | null = null
    /** The store brought the previous version back itself (a deploy, apply or rollback whose `up` failed). */
    let restored = false
    let brought: "pulled" | "up" = "up"
    try {
      brought = await g.change()
    } catch (err) {
      if (!orchestrator.failedToRun(err)) throw err
      failure = redact(errorMessage(err), await secrets())
      restored = action !== "update"
    }
    const { images, moved } = pin ? await orchestrator.changes(pin) : { images: [], moved: false }
    const outcome = {
      stack: name,
      action,
      trigger: run.trigger ?? "api",
      version: pin?.version ?? null,
      images,
      watch: window,
      started_at: new Date(started).toISOString(),
    }
    const finish = (v: Verdicts) => this.finish(outcome, started, v)
    if (!failure && g.compareFirst && pin?.images.length && !moved)
      return finish({ verdict: "unchanged", early: false })
    if (!failure && brought === "pulled") {
      this.publish(
        name,
        "update.up",
        `bringing up ${
          images
            .filter((i) => i.to)
            .map((i) => i.service)
            .join(", ") || name
        } with the new images`,
      )
      await this.stacks.up(name).catch((err) => (failure = `bringing it up failed: ${errorMessage(err)}`))
    }
    const hidden = await secrets()
    let early = false
    if (!failure && window > 0) {
      this.publish(name, "update.watch", `watching ${name} for up to ${window} s`)
      const watch = await this.watch(orchestrator, name, pin, { window, since: started, secrets: hidden })
      early = watch.ok ? watch.early : watch.elapsed_ms < window * 1000
      if (!watch.ok) failure = watch.reason
    }
    if (!failure) return finish({ verdict: "updated", early })
    const reason = failure
    this.publish(name, "update.rollback", `rolling ${name} back: ${reason}`, { level: "error" })
    if (!pin?.images.length)
      return finish({
        verdict: "rollback_failed",
        reason,
        fix: `${name} had nothing running before, so there is nothing to return to: fix the compose file or the image and deploy again`,
        early,
      })
    const problems = restored ? [] : await orchestrator.rollBack(pin, await this.wayBack(name, pin, action, window))
    if (problems.length)
      return finish({ verdict: "rollback_failed", reason, fix: redact(problems.join("; "), hidden), early })
    if (window > 0) {
      const again = await this.watch(orchestrator, name, pin, { window, since: this.now(), secrets: hidden })
      if (!again.ok)
        return finish({
          verdict: "rollback_failed",
          reason,
          fix: `the previous images fail too (${again.reason}): look at the service's logs, fix the image or compose file and deploy`,
          early,
        })
    }
    return finish({ verdict: "rolled_back", reason, early })
  }

  private watch(
    orchestrator: Orchestrator,
    name: string,
    pin: Pinned | undefined,
    run: { window: number; since: number; secrets: string[] },
  ) {
    return orchestrator.watch(name, pin, { ...run, maxRestarts: this.maxRestarts, pollMs: this.pollMs, now: this.now })
  }

  /** What runs is the current version, not the stored records: an environment or file changed since (pending until applied) is what a watched apply is about to try. */
  private async recorded(stack: Stack): Promise<Omit<Pinned, "stack" | "images">> {
    const version = stack.state.current_version
    const running = version === null ? stack : await this.stacks.version(stack.name, version)
    return { version, compose: running.compose, env: running.env, files: running.files ?? {} }
  }

  /** The store's steps back to the pin: the same records brought up as they are, or the pinned version deployed again. */
  private async wayBack(name: string, pin: Pinned, action: Guarded["action"], window: number) {
    const stack = await this.stacks.read(name)
    return {
      update: action === "update",
      sameRecords: stack.compose === pin.compose && sameEnv(stack.env, pin.env) && sameFiles(stack.files, pin.files),
      window,
      up: async () => void (await this.stacks.up(name)),
      redeploy: async () => {
        if (pin.version === null) throw new Error("the stack had no deployed version to return to")
        await this.stacks.rollback(name, pin.version)
      },
    }
  }

  private async secretsOf(name: string, pin: Pinned | undefined): Promise<string[]> {
    const now = await this.stacks.read(name).then(
      (s) => s.env,
      () => [],
    )
    return [...new Set([...secretValues(now), ...secretValues(pin?.env ?? [])])]
  }

  private async finish(
    base: Omit<UpdateOutcome, "verdict" | "reason" | "fix" | "decided_early" | "finished_at" | "duration_ms">,
    started: number,
    { verdict, reason = null, fix = null, early }: Verdicts,
  ): Promise<UpdateOutcome> {
    const finished = this.now()
    const outcome: UpdateOutcome = {
      ...base,
      verdict,
      reason,
      fix,
      decided_early: early,
      finished_at: new Date(finished).toISOString(),
      duration_ms: finished - started,
    }
    this.counts[verdict]++
    await this.records
      .addHistory(base.stack, outcome)
      .catch((err) => console.error("update history:", errorMessage(err)))
    const text = `${base.action} of ${base.stack}: ${verdict}${reason ? `: ${reason}` : ""}${fix ? `; fix by hand: ${fix}` : ""}`
    this.publish(base.stack, "update.verdict", text, {
      level: verdict === "rollback_failed" || verdict === "rolled_back" ? "error" : "info",
      attributes: { verdict },
    })
    if (verdict !== "unchanged")
      this.notifier.notify({
        event: verdict,
        stack: base.stack,
        verdict,
        reason,
        images: outcome.images.filter((i) => i.to),
        message: text,
      })
    return outcome
  }
}
