// Guarded updates: owns the orchestration pin → change → watch → (rollback → watch) → verdict, its
// events, the stack's record, the counts by verdict and the notifications.
//
// An update pins what runs (lib/updates/pin.ts), pulls under the stack's lock, and compares: when no
// service's tag names another image than its container runs, the verdict is `unchanged` and nothing
// is brought up (nothing restarts). Otherwise the stack is brought up without pulling again and
// watched (lib/updates/watch.ts). A failed watch (or a failed `up`) rolls back: each moved tag is
// pointed at its pinned image again, the recorded compose file and environment are restored (the
// same files: brought up as they are; changed by a watched deploy or apply: the pinned version is
// redeployed), and that is watched too. Verdicts: updated, rolled_back (with the reason), rollback_failed
// (with the reason and what to fix by hand), unchanged. A deploy, apply or rollback asked to be
// watched goes through the same path with its own change.
//
// A swarm stack goes the same way with the swarm's means (`performSwarm`): the update redeploys
// with every image resolved again in its registry, a change is brought up when its services
// converge, the watch reads their tasks on every node (lib/updates/swarm-watch.ts), and the rollback
// is the store's (a deploy whose tasks fail redeploys the previous version; a watched change that
// fails afterwards rolls back to the pinned version) or, for an update, the swarm's own `service
// rollback` of each service it changed. Verdicts, history, events and notifications are the same.
//
// One guarded operation per stack at a time (a second is 409 update_in_progress); the stack store's
// own lock still orders each compose call with the rest of the service.
import type { EventBus } from "../engine/events.ts"
import type { Engine } from "../engine/client.ts"
import { redact, sameEnv, secretValues } from "../stacks/env.ts"
import { conflict, isDomainError } from "../errors/errors.ts"
import { converged, engineSwarm, rollbackServices } from "../stacks/swarm.ts"
import { imageChanges, serviceImages, watchSwarmStack } from "./swarm-watch.ts"
import type { Stacks } from "../stacks/store.ts"
import type { OrchestratorName } from "../stacks/orchestrator.ts"
import type { Notifier } from "./notify.ts"
import {
  digestRef,
  holdImages,
  movedServices,
  pinStack,
  releaseImages,
  restoreImages,
  sameFiles,
  type Pin,
} from "./pin.ts"
import type { ImageChange, UpdateOutcome, UpdateRecords, Verdict } from "./records.ts"
import { watchStack, type WatchResult } from "./watch.ts"

export interface GuardOptions {
  engine: Engine
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

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

export class UpdateGuard {
  readonly counts: Record<Verdict, number> = { updated: 0, rolled_back: 0, rollback_failed: 0, unchanged: 0 }
  private running = new Set<string>()

  constructor(private readonly o: GuardOptions) {}

  private get now() {
    return this.o.now ?? Date.now
  }

  /** Whether a guarded operation runs on the stack now. */
  busy(name: string): boolean {
    return this.running.has(name)
  }

  /** Pull, and when an image moved: up, watch, and roll back on failure. */
  update(name: string, run: GuardRun = {}): Promise<UpdateOutcome> {
    return this.guarded(
      name,
      "update",
      run,
      async () => {
        const stack = await this.o.stacks.read(name)
        if (stack.state.orchestrator === "swarm") {
          await this.o.stacks.up(name, { pull: true })
          return "up"
        }
        await this.o.stacks.lock(name, async () => {
          await this.o.stacks.model(name, stack.compose, stack.env)
          await this.o.stacks.must(this.o.stacks.project(name, stack.env), ["pull"], "pull")
        })
        return "changed"
      },
      true,
    )
  }

  /** A deploy, apply or rollback (`change`), watched; rolled back to the pinned state when the watch fails. */
  watched(
    name: string,
    action: "deploy" | "apply" | "rollback",
    run: GuardRun,
    change: () => Promise<unknown>,
  ): Promise<UpdateOutcome> {
    return this.guarded(
      name,
      action,
      run,
      async () => {
        await change()
        return "up"
      },
      false,
    )
  }

  private async guarded(
    name: string,
    action: UpdateOutcome["action"],
    run: GuardRun,
    change: () => Promise<"changed" | "up">,
    compareFirst: boolean,
  ): Promise<UpdateOutcome> {
    if (this.running.has(name)) throw conflict(`an update of ${name} is already running`, "update_in_progress")
    this.running.add(name)
    const holder: { pin?: Pin } = {}
    try {
      const outcome = await this.perform(name, action, run, change, compareFirst, holder)
      // After rollback_failed the held names stay: the fix by hand can tag from them.
      if (holder.pin && outcome.verdict !== "rollback_failed") await releaseImages(this.o.engine, holder.pin)
      return outcome
    } catch (err) {
      if (holder.pin) await releaseImages(this.o.engine, holder.pin)
      throw err
    } finally {
      this.running.delete(name)
    }
  }

  private publish(
    name: string,
    action: string,
    text: string,
    level: "info" | "error" = "info",
    attributes?: Record<string, string>,
  ) {
    this.o.events.publish({ type: "stack", action, name, level, message: text, ...(attributes ? { attributes } : {}) })
  }

  private async perform(
    name: string,
    action: UpdateOutcome["action"],
    run: GuardRun,
    change: () => Promise<"changed" | "up">,
    compareFirst: boolean,
    holder: { pin?: Pin },
  ): Promise<UpdateOutcome> {
    const existing = this.o.stacks.has(name) ? await this.o.stacks.read(name) : undefined
    if ((existing?.state.orchestrator ?? run.orchestrator) === "swarm")
      return this.performSwarm(name, action, run, change, compareFirst)
    const started = this.now()
    const window = run.watch ?? this.o.watch
    const existed = this.o.stacks.has(name)
    const pin = existed ? await pinStack(this.o.engine, this.o.stacks, name, this.now) : undefined
    if (pin) {
      holder.pin = pin
      await holdImages(this.o.engine, pin)
    }
    if (pin)
      this.publish(
        name,
        "update.pinned",
        `pinned ${pin.services.map((s) => `${s.service}=${s.digest_ref ?? s.image_id}`).join(", ") || "no running service"} (version ${pin.version ?? "none"})`,
      )
    const result = await change()
    const moved = pin ? await movedServices(this.o.engine, pin) : []
    const images = await this.changes(pin, moved)
    const base = {
      stack: name,
      action,
      trigger: run.trigger ?? "api",
      version: pin?.version ?? null,
      images,
      watch: window,
      started_at: new Date(started).toISOString(),
    }
    if (compareFirst && pin && !moved.length && pin.services.length)
      return this.finish(base, started, "unchanged", null, null, false)
    let failure: string | null = null
    let early = false
    if (result === "changed") {
      this.publish(
        name,
        "update.up",
        `bringing up ${moved.map((m) => m.service.service).join(", ") || name} with the new images`,
      )
      await this.o.stacks.up(name).catch((err) => (failure = `compose up failed: ${message(err)}`))
    }
    const secrets = await this.secretsOf(name, pin)
    if (!failure && window > 0) {
      this.publish(name, "update.watch", `watching ${name} for up to ${window} s`)
      const watch = await this.watch(name, window, pin, secrets, started)
      early = watch.ok ? watch.early : watch.elapsed_ms < window * 1000
      if (!watch.ok) failure = watch.reason
    }
    if (!failure) return this.finish(base, started, "updated", null, null, early)
    this.publish(name, "update.rollback", `rolling ${name} back: ${failure}`, "error")
    if (!pin || !pin.services.length)
      return this.finish(
        base,
        started,
        "rollback_failed",
        failure,
        `${name} had nothing running before, so there is nothing to return to: fix the compose file or the image and deploy again`,
        early,
      )
    const problems = await restoreImages(this.o.engine, pin)
    if (problems.length) return this.finish(base, started, "rollback_failed", failure, problems.join("; "), early)
    const restored = await this.restoreFiles(name, pin).then(
      () => null,
      (err) => message(err),
    )
    if (restored)
      return this.finish(
        base,
        started,
        "rollback_failed",
        failure,
        `bringing the previous state back failed (${redact(restored, secrets)}): look at the stack's containers and bring it up by hand`,
        early,
      )
    if (window > 0) {
      const again = await this.watch(name, window, pin, secrets, this.now())
      if (!again.ok)
        return this.finish(
          base,
          started,
          "rollback_failed",
          failure,
          `the previous images fail too (${again.reason}): look at the service's logs, fix the image or compose file and deploy`,
          early,
        )
    }
    return this.finish(base, started, "rolled_back", failure, null, early)
  }

  /** The guarded path of a swarm stack (see the module's comment). */
  private async performSwarm(
    name: string,
    action: UpdateOutcome["action"],
    run: GuardRun,
    change: () => Promise<unknown>,
    compareFirst: boolean,
  ): Promise<UpdateOutcome> {
    const started = this.now()
    const window = run.watch ?? this.o.watch
    const version = this.o.stacks.has(name) ? (await this.o.stacks.read(name)).state.current_version : null
    const before = await serviceImages(this.o.engine, name)
    this.publish(
      name,
      "update.pinned",
      `pinned ${[...before].map(([s, i]) => `${s}=${i}`).join(", ") || "no service"} (version ${version ?? "none"})`,
    )
    const secrets = await this.secretsOf(name, undefined)
    let failure: string | null = null
    /** The store deployed the previous version again already (a change whose tasks failed). */
    let restored = false
    try {
      await change()
    } catch (err) {
      if (!(isDomainError(err) && err.code === "stack_failed")) throw err
      failure = redact(err.message, secrets)
      restored = action !== "update"
    }
    const images = imageChanges(before, await serviceImages(this.o.engine, name).catch(() => new Map()))
    const base = {
      stack: name,
      action,
      trigger: run.trigger ?? "api",
      version,
      images,
      watch: window,
      started_at: new Date(started).toISOString(),
    }
    if (!failure && compareFirst && before.size && !images.some((i) => i.to))
      return this.finish(base, started, "unchanged", null, null, false)
    let early = false
    if (!failure && window > 0) {
      this.publish(name, "update.watch", `watching ${name} for up to ${window} s`)
      const watch = await watchSwarmStack(this.o.engine, name, {
        window,
        pollMs: this.o.pollMs,
        secrets,
        now: this.now,
      })
      if (!watch.ok) {
        failure = watch.reason
        early = watch.elapsed_ms < window * 1000
      }
    }
    if (!failure) return this.finish(base, started, "updated", null, null, early)
    this.publish(name, "update.rollback", `rolling ${name} back: ${failure}`, "error")
    if (version === null)
      return this.finish(
        base,
        started,
        "rollback_failed",
        failure,
        `${name} had nothing running before, so there is nothing to return to: fix the compose file or the image and deploy again`,
        early,
      )
    try {
      if (action === "update") {
        const since = this.now()
        await rollbackServices(this.o.engine, name, { timeout: 30, pollMs: this.o.pollMs, now: this.now })
        await converged(engineSwarm(this.o.engine), name, since, {
          timeout: Math.max(window, 60) * 2,
          pollMs: this.o.pollMs,
          now: this.now,
          rollback: true,
        })
      } else if (!restored) await this.o.stacks.rollback(name, version)
    } catch (err) {
      return this.finish(
        base,
        started,
        "rollback_failed",
        failure,
        `bringing the previous state back failed (${redact(message(err), secrets)}): look at the stack's services and tasks and deploy by hand`,
        early,
      )
    }
    if (window > 0) {
      const again = await watchSwarmStack(this.o.engine, name, {
        window,
        pollMs: this.o.pollMs,
        secrets,
        now: this.now,
      })
      if (!again.ok)
        return this.finish(
          base,
          started,
          "rollback_failed",
          failure,
          `the previous images fail too (${again.reason}): look at the service's logs, fix the image or compose file and deploy`,
          early,
        )
    }
    return this.finish(base, started, "rolled_back", failure, null, early)
  }

  private watch(
    name: string,
    window: number,
    pin: Pin | undefined,
    secrets: string[],
    since: number,
  ): Promise<WatchResult> {
    const ignore = pin?.services.filter((s) => !s.running).map((s) => s.service) ?? []
    return watchStack(this.o.engine, name, {
      window,
      maxRestarts: this.o.maxRestarts,
      pollMs: this.o.pollMs,
      secrets,
      ignore,
      since,
      now: this.now,
    })
  }

  private async secretsOf(name: string, pin: Pin | undefined): Promise<string[]> {
    const now = await this.o.stacks.read(name).then(
      (s) => s.env,
      () => [],
    )
    return [...new Set([...secretValues(now), ...secretValues(pin?.env ?? [])])]
  }

  /** The same compose file, files and environment: up as they are (no pull); others: the pinned version again. */
  private async restoreFiles(name: string, pin: Pin): Promise<void> {
    const stack = await this.o.stacks.read(name)
    const files = (stack as { files?: Record<string, string> }).files ?? {}
    if (stack.compose === pin.compose && sameEnv(stack.env, pin.env) && sameFiles(files, pin.files))
      await this.o.stacks.up(name)
    else if (pin.version !== null) await this.o.stacks.rollback(name, pin.version)
    else throw new Error("the stack had no deployed version to return to")
  }

  private async changes(
    pin: Pin | undefined,
    moved: Awaited<ReturnType<typeof movedServices>>,
  ): Promise<ImageChange[]> {
    if (!pin) return []
    return Promise.all(
      pin.services.map(async (s) => {
        const m = moved.find((x) => x.service === s)
        const to_id = m ? m.now : null
        const image = to_id ? await this.o.engine.inspectImage(to_id).catch(() => undefined) : undefined
        return {
          service: s.service,
          ref: s.ref,
          from: s.digest_ref ?? s.image_id,
          from_id: s.image_id,
          to: to_id ? ((image && digestRef(s.ref, image.RepoDigests ?? [])) ?? to_id) : null,
          to_id,
        }
      }),
    )
  }

  private async finish(
    base: Omit<UpdateOutcome, "verdict" | "reason" | "fix" | "decided_early" | "finished_at" | "duration_ms">,
    started: number,
    verdict: Verdict,
    reason: string | null,
    fix: string | null,
    early: boolean,
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
    await this.o.records.addHistory(base.stack, outcome).catch((err) => console.error("update history:", message(err)))
    const text = `${base.action} of ${base.stack}: ${verdict}${reason ? `: ${reason}` : ""}${fix ? `; fix by hand: ${fix}` : ""}`
    this.publish(
      base.stack,
      "update.verdict",
      text,
      verdict === "rollback_failed" || verdict === "rolled_back" ? "error" : "info",
      { verdict },
    )
    if (verdict !== "unchanged")
      this.o.notifier.notify({
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
