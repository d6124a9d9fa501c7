// Git stacks (lib/git): a stack's git source attached, changed and detached, its status, and the sync
// that makes a new commit a version. A sync fetches the ref, and a commit other than the deployed one
// is deployed through the stack verbs (the store's guards, the version recording the commit) and,
// with `watch`, watched through the update guard (rollback, verdict, notification). A stack whose
// containers a person stopped is not started: the sync records what it found and leaves it stopped.
// A commit refused (the store's guards, a symlink, a file over the cap) is not applied; the refusal
// is the verdict, and a scheduled sync does not fetch that commit again: it asks the remote's head
// (ls-remote) and waits until the branch moves. One sync runs at a time per stack: a sync asked while
// one runs is one more sync after it (asks that pile up meanwhile join that one), so its answer is
// about a fetch made after it was asked and no push is left unlooked at. Each sync publishes one `git`
// event; no event, answer or error carries a token or a key.
import { setTimeout as pause } from "node:timers/promises"
import type { Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import { conflict, DomainError, invalid, isRefusal, notFound, unauthenticated } from "../errors/errors.ts"
import { checkWebhook } from "../git/webhook.ts"
import { maskUrl } from "../credentials/urls.ts"
import { refused } from "../errors/errors.ts"
import {
  credentials,
  publicSource,
  readSource,
  removeSource,
  sourceFrom,
  writeSource,
  type GitInput,
  type GitSource,
  type LastSync,
} from "../git/source.ts"
import { fetchTree, refusedCommit, remoteHead, type TreeLimits } from "../git/tree.ts"
import type { EnvInput } from "../stacks/env.ts"
import type { OrchestratorName } from "../stacks/orchestrator.ts"
import { stackView } from "../stacks/state.ts"
import { StackMemo } from "../stacks/memo.ts"
import type { Stacks } from "../stacks/store.ts"
import { checkSchedule, nextDue } from "../updates/records.ts"
import type { StackVerbs } from "./stack-verbs.ts"

export interface GitVerbsOptions {
  stacks: Stacks
  verbs: StackVerbs
  engine: Engine
  events: EventBus
  limits?: TreeLimits
  /** Seconds a scheduled sync's deploy is watched (SVC_UPDATE_WATCH). */
  watch: number
  tickMs?: number
  /** When the service started (ms; now unless given): a schedule's first sync is due a period after it. */
  started?: number
}

export type Trigger = "api" | "webhook" | "schedule"

export interface SyncOptions {
  trigger: Trigger
  /** Seconds of health watch after the deploy (none: not watched). */
  watch?: number
  signal?: AbortSignal
}

/** A sync under way: what asked for it, since when, its step and the commit it deploys once fetched; whether another waits behind it. */
export interface SyncProgress {
  trigger: Trigger
  since: string
  step: "fetching" | "deploying"
  commit: string | null
  queued: boolean
}

/** The sync running for a stack and the one waiting behind it (the asks it will answer). */
interface Lane {
  running: Promise<SyncOutcome>
  progress: SyncProgress
  waiting?: { asks: SyncOptions[]; outcome: Promise<SyncOutcome> }
}

export interface SyncOutcome extends LastSync {
  trigger: Trigger
  /** The stack's current version after the sync. */
  version: number | null
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** Verdicts a scheduled sync does not try again for the same commit. */
const TRIED = ["refused", "rolled_back", "rollback_failed"]

/** What the stack list shows of a stack's source, and what the schedules take of it. */
type Marker = { url: string; ref: string; last_verdict: string | null }
type Listed = { marker: Marker; schedule: string | null }

const listedOf = (source: GitSource): Listed => ({
  marker: { url: maskUrl(source.url), ref: source.ref, last_verdict: source.last_sync?.verdict ?? null },
  schedule: source.schedule ?? null,
})

/** What a new stack's first deploy takes besides the repository's files. */
export interface FirstDeploy {
  env?: EnvInput
  orchestrator?: OrchestratorName
}

export class GitVerbs {
  private lanes = new Map<string, Lane>()
  /** When each stack's schedule last ran (ms), counted from the service's start. */
  private ran = new Map<string, number>()
  private readonly started: number

  private readonly stacks: GitVerbsOptions["stacks"]
  private readonly engine: GitVerbsOptions["engine"]
  private readonly watch: GitVerbsOptions["watch"]
  private readonly tickMs: GitVerbsOptions["tickMs"]
  private readonly limits: GitVerbsOptions["limits"]
  private readonly verbs: GitVerbsOptions["verbs"]
  private readonly events: GitVerbsOptions["events"]
  /** What the list and the schedules take of each stack's source (null: none): read once, then kept by the writes here (every source is written here). */
  private readonly listed: StackMemo<Listed | null>

  constructor(o: GitVerbsOptions) {
    this.stacks = o.stacks
    this.engine = o.engine
    this.watch = o.watch
    this.tickMs = o.tickMs
    this.limits = o.limits
    this.verbs = o.verbs
    this.events = o.events
    this.started = o.started ?? Date.now()
    this.listed = new StackMemo(o.stacks, async (name) => {
      const source = o.stacks.has(name) ? await readSource(o.stacks.records(name)) : undefined
      return source ? listedOf(source) : null
    })
  }

  /** The source without its secrets, the remote's head (null when it could not be read, with `remote_error`) and whether it differs from the deployed commit. */
  async status(name: string, signal?: AbortSignal) {
    const source = await this.source(name)
    let remote_head: string | null = null
    let remote_error: string | null = null
    try {
      remote_head = await remoteHead({ url: source.url, ref: source.ref, ...this.credentials(name, source), signal })
    } catch (err) {
      remote_error = message(err)
    }
    const last = source.last_sync
    const held =
      source.schedule && last?.commit && TRIED.includes(last.verdict) && last.commit === remote_head
        ? last.commit
        : null
    return {
      ...publicSource(source),
      remote_head,
      remote_error,
      differ: remote_head !== null && remote_head !== source.deployed_commit,
      schedule_held: held,
      syncing: this.progress(name),
    }
  }

  /** What the stack list shows of a stack's source: its repository, ref and last verdict; null without one. From memory after the first time. */
  async marker(name: string): Promise<Marker | null> {
    return (await this.listed.get(name))?.marker ?? null
  }

  /** Writes a stack's source; nothing for a stack gone meanwhile (a sync that ended after its stack was removed). */
  private write(name: string, source: GitSource): void {
    if (!this.stacks.has(name)) return
    writeSource(this.stacks.records(name), source)
    this.listed.set(name, listedOf(source))
  }

  /**
   * Attaches a git source to stack `name` (or changes it), then syncs; a stack not here yet is created
   * from the repository (with `first`: its environment and orchestrator), and one here without git is
   * taken only with `attach` (else 409 `stack_exists`); with `create` (a deploy of a new stack) any
   * stack here is; with `mayCreate: false` (a caller limited to some stacks) none is created (403).
   * Answers the source without its secrets, the webhook secret when it is new (shown once), and the
   * sync.
   */
  async attach(
    name: string,
    input: GitInput,
    opts: Omit<SyncOptions, "trigger"> & {
      attach?: boolean
      create?: boolean
      mayCreate?: boolean
      first?: FirstDeploy
    },
  ) {
    const records = this.stacks.records(name)
    const before = this.stacks.has(name) ? await readSource(records) : undefined
    if (this.stacks.has(name) && (!before || opts.create) && !opts.attach)
      throw conflict(
        `a stack named ${name} already runs here${before ? ` from ${maskUrl(before.url)}` : " without git"}: its compose file and files would be replaced by the repository's; ask with attach: true to put it under this repository`,
        "stack_exists",
      )
    if (this.stacks.has(name) && (opts.first?.env || opts.first?.orchestrator))
      throw invalid(
        `${name} runs here already: its environment is changed with PUT /api/stacks/${name}/env, and its orchestrator stays its own`,
        "bad_request",
      )
    if (input.schedule) checkSchedule(input.schedule)
    const source = sourceFrom(input, before)
    const created = !this.stacks.has(name)
    if (created && opts.mayCreate === false)
      throw refused(`${name} is no stack here, and this caller creates none (it is limited to some stacks)`)
    if (created) {
      // The first deploy writes the stack's records; the source follows only when it succeeded.
      const outcome = await this.fetchAndDeploy(name, source, { ...opts, trigger: "api" }, { first: opts.first })
      if (outcome.verdict !== "applied")
        throw new DomainError(
          outcome.verdict === "refused" ? "invalid" : "upstream",
          "git_sync_failed",
          `${name} was not created from ${maskUrl(source.url)}: ${outcome.error}`,
        )
      this.write(name, { ...source, deployed_commit: outcome.commit, last_sync: this.last(outcome) })
    } else this.write(name, source)
    this.publish(
      name,
      "attach",
      `${created ? "created" : "attached"} ${name} from ${maskUrl(source.url)} ${source.ref}:${source.path}`,
    )
    const sync = created ? undefined : await this.sync(name, { ...opts, trigger: "api" })
    const now = (await readSource(records))!
    return {
      created,
      source: publicSource(now),
      ...(before?.webhook_secret === now.webhook_secret ? {} : { webhook_secret: now.webhook_secret }),
      sync: sync ?? null,
    }
  }

  /** A deploy from git (`POST /api/stacks` with `git`): `attach` with `create`; the stack as the deploy answers it, and what attaching answered as `git`. */
  async deploy(
    name: string,
    input: GitInput,
    opts: Omit<SyncOptions, "trigger"> & { attach?: boolean; first?: FirstDeploy },
  ) {
    const git = await this.attach(name, input, { ...opts, create: true })
    return { created: git.created, stack: { ...(await stackView(this.stacks, this.engine, name)), git } }
  }

  /** The git source removed; the stack stays as it runs. */
  async detach(name: string): Promise<void> {
    await this.source(name)
    removeSource(this.stacks.records(name))
    this.listed.set(name, null)
    this.publish(name, "detach", `detached ${name} from git`)
  }

  /**
   * A sync (see the module's comment). One runs at a time per stack; asked while one runs, it is the
   * next sync, started when that one ends and shared by every ask that arrives until then.
   */
  sync(name: string, opts: SyncOptions): Promise<SyncOutcome> {
    const lane = this.lanes.get(name)
    if (!lane) return this.start(name, [opts])
    if (lane.waiting) {
      lane.waiting.asks.push(opts)
      return lane.waiting.outcome
    }
    const asks = [opts]
    const outcome = lane.running.then(
      () => this.start(name, asks),
      () => this.start(name, asks),
    )
    lane.waiting = { asks, outcome }
    lane.progress.queued = true
    return outcome
  }

  /** The sync under way for a stack, null when none runs. */
  progress(name: string): SyncProgress | null {
    const lane = this.lanes.get(name)
    return lane ? { ...lane.progress } : null
  }

  /** Starts one sync for `asks`, the stack's lane until it ends (or until the sync waiting behind it starts). */
  private start(name: string, asks: SyncOptions[]): Promise<SyncOutcome> {
    const opts = joined(asks)
    const progress: SyncProgress = {
      trigger: opts.trigger,
      since: new Date().toISOString(),
      step: "fetching",
      commit: null,
      queued: false,
    }
    const lane: Lane = {
      progress,
      running: this.runSync(name, opts, progress).finally(() => {
        if (this.lanes.get(name) === lane && !lane.waiting) this.lanes.delete(name)
      }),
    }
    this.lanes.set(name, lane)
    return lane.running
  }

  /**
   * A webhook: its proof checked against the stack's secret (401 and a `git` event when it fails,
   * nothing runs), then a sync in the background (a git server waits a few seconds for its answer,
   * a watched deploy takes longer): its verdict is the `git` event and the status's last sync.
   */
  async webhook(
    name: string,
    headers: Headers,
    body: Uint8Array,
    opts: Omit<SyncOptions, "trigger" | "signal">,
  ): Promise<{ accepted: true }> {
    const source = this.stacks.has(name) ? await readSource(this.stacks.records(name)) : undefined
    // A stack without git answers the same as a wrong proof: the route tells a caller nothing more.
    const proof = source ? checkWebhook(headers, body, source.webhook_secret) : { kind: "none", ok: false }
    if (!proof.ok) {
      this.publish(
        name,
        "webhook_refused",
        `webhook for ${name} refused: ${proof.kind === "none" ? "no signature" : `wrong ${proof.kind} signature`}`,
      )
      throw unauthenticated("the webhook's signature does not match this stack's secret", "bad_signature")
    }
    this.sync(name, { ...opts, trigger: "webhook" }).catch((err) => console.error(`git sync of ${name}:`, message(err)))
    return { accepted: true }
  }

  /**
   * Runs each git stack's schedule until `signal` aborts, one stack at a time. A commit a scheduled
   * sync found refused or rolled back is not tried again by the schedule (a newer push is).
   */
  async schedules(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      for (const name of this.stacks.names()) {
        const schedule = (await this.listed.get(name).catch(() => null))?.schedule
        const due = schedule ? nextDue(schedule, this.ran.get(name) ?? this.started) : null
        if (due === null || due > Date.now() || signal.aborted) continue
        this.ran.set(name, Date.now())
        await this.sync(name, { trigger: "schedule", watch: this.watch, signal }).catch((err) =>
          console.error(`git sync of ${name}:`, message(err)),
        )
      }
      await pause(this.tickMs ?? 1000, undefined, { signal }).catch(() => {})
    }
  }

  private async runSync(name: string, opts: SyncOptions, progress?: SyncProgress): Promise<SyncOutcome> {
    const source = await this.source(name)
    const last = source.last_sync
    // A scheduled sync asks the remote's head first: a commit found refused or rolled back is not
    // fetched again while the branch stays there, and a refusal that came before git named a commit
    // (a fetch over the cap) is recorded against that head.
    const head =
      opts.trigger === "schedule"
        ? await remoteHead({
            url: source.url,
            ref: source.ref,
            ...this.credentials(name, source),
            signal: opts.signal,
          }).catch(() => undefined)
        : undefined
    if (head && head === last?.commit && TRIED.includes(last.verdict))
      return {
        ...last,
        trigger: "schedule",
        version: this.stacks.has(name) ? (await this.stacks.read(name)).state.current_version : null,
      }
    const outcome = await this.fetchAndDeploy(name, source, opts, { head: head ?? undefined, progress })
    const now = (await readSource(this.stacks.records(name))) ?? source
    this.write(name, {
      ...now,
      deployed_commit: outcome.verdict === "applied" ? outcome.commit : now.deployed_commit,
      last_sync: this.last(outcome),
    })
    return outcome
  }

  /** `head`: the commit the remote's ref named just before, for a refusal that names none. */
  private async fetchAndDeploy(
    name: string,
    source: GitSource,
    opts: SyncOptions,
    {
      first,
      head,
      progress,
    }: {
      /** A new stack's first deploy: its environment and orchestrator. */
      first?: FirstDeploy
      /** The branch's head as the schedule read it, when it did. */
      head?: string
      progress?: SyncProgress
    } = {},
  ): Promise<SyncOutcome> {
    const time = new Date().toISOString()
    const done = (
      verdict: string,
      commit: string | null,
      error: string | null,
      version: number | null,
    ): SyncOutcome => {
      const outcome = { time, trigger: opts.trigger, commit, verdict, error, version }
      const short = commit ? ` at ${commit.slice(0, 12)}` : ""
      this.publish(name, "sync", `sync of ${name} (${opts.trigger})${short}: ${verdict}${error ? `: ${error}` : ""}`)
      return outcome
    }
    const current = async () => (this.stacks.has(name) ? (await this.stacks.read(name)).state.current_version : null)
    let fetched
    try {
      fetched = await fetchTree({
        url: source.url,
        ref: source.ref,
        path: source.path,
        ...this.credentials(name, source),
        limits: this.limits,
        signal: opts.signal,
      })
    } catch (err) {
      const refused = isRefusal(err)
      return done(
        refused ? "refused" : "failed",
        refusedCommit(err) ?? (refused ? (head ?? null) : null),
        message(err),
        await current(),
      )
    }
    const { commit } = fetched
    if (commit === source.deployed_commit) return done("unchanged", commit, null, await current())
    if (progress) Object.assign(progress, { step: "deploying", commit })
    if (await this.stopped(name))
      return done(
        "stopped",
        commit,
        `${name}'s containers are stopped: the commit is not deployed and the stack stays stopped; start it and sync again`,
        await current(),
      )
    try {
      const { stack } = await this.verbs.deploy(name, fetched.compose, {
        ...first,
        files: fetched.files,
        commit,
        watch: opts.watch,
        signal: opts.signal,
      })
      const verdict =
        !stack.update || stack.update.verdict === "updated" || stack.update.verdict === "unchanged"
          ? "applied"
          : stack.update.verdict
      return done(verdict, commit, stack.update?.reason ?? null, await current())
    } catch (err) {
      return done(isRefusal(err) ? "refused" : "failed", commit, message(err), await current())
    }
  }

  /** Whether a person stopped the stack (its orchestrator tells). */
  private async stopped(name: string): Promise<boolean> {
    return this.stacks.has(name) && this.stacks.orchestratorOf(await this.stacks.state(name)).stopped(name)
  }

  private last(o: SyncOutcome): LastSync {
    return { time: o.time, commit: o.commit, verdict: o.verdict, error: o.error }
  }

  /** The source's credentials; a host key ssh accepted for the first time is kept with the source (the one written next, and the stored one). */
  private credentials(name: string, source: GitSource) {
    return credentials(source, (known_hosts) => {
      source.known_hosts ||= known_hosts
      const records = this.stacks.records(name)
      return readSource(records).then(
        (now) => void (now && !now.known_hosts && this.write(name, { ...now, known_hosts })),
      )
    })
  }

  private async source(name: string): Promise<GitSource> {
    const source = this.stacks.has(name) ? await readSource(this.stacks.records(name)) : undefined
    if (!source) throw notFound(`stack ${name} has no git source`, "no_git_source")
    return source
  }

  private publish(name: string, action: string, message: string): void {
    this.events.publish({ type: "git", action, name, message })
  }
}

/**
 * The options of one sync that answers several asks: the strongest trigger (a person's over a
 * webhook's over the schedule's: a sync by hand tries a held commit again), the longest watch, and a
 * signal that aborts only once every ask's caller went away (an ask without one never does).
 */
function joined(asks: SyncOptions[]): SyncOptions {
  if (asks.length === 1) return asks[0]!
  const trigger = (["api", "webhook", "schedule"] as const).find((t) => asks.some((a) => a.trigger === t))!
  const watches = asks.flatMap((a) => (a.watch === undefined ? [] : [a.watch]))
  const signals = asks.map((a) => a.signal)
  let signal: AbortSignal | undefined
  if (signals.every((s) => s !== undefined)) {
    const all = new AbortController()
    const check = () => signals.every((s) => s!.aborted) && all.abort()
    for (const s of signals) s!.addEventListener("abort", check, { once: true })
    check()
    signal = all.signal
  }
  return { trigger, watch: watches.length ? Math.max(...watches) : undefined, signal }
}
