// Backups of stacks (lib/backups): the repositories, a stack's backup under its lock, its restore
// (whose records the store writes under their own lock), the schedules, each with one service event
// ({type: "backup", action, name, message}: names, runs and sizes, never a password or a value of
// the environment); a failed backup, restore or check is an error event.
import type { CopyDeps } from "../copy/copy.ts"
import type { EventBus } from "../engine/events.ts"
import { backupStack, forget, type BackupResult, type Progress } from "../backups/backup.ts"
import type { Hooks } from "../backups/hooks.ts"
import {
  view,
  type CheckResult,
  type Keep,
  type Repo,
  type RepoSettings,
  type RepoView,
  type Repos,
} from "../backups/repos.ts"
import { restic } from "../backups/restic.ts"
import { restoreStack, type RestoreRequest, type RestoreResult } from "../backups/restore.ts"
import { findBackup, listBackups, newestBackups, type Backup } from "../backups/snapshots.ts"
import { backupState, stateBackups, type StateBackup } from "../backups/state.ts"
import { errorFields } from "../http/http-error.ts"
import { stackName } from "../stacks/name.ts"
import { nextDue } from "../updates/records.ts"

export interface BackupVerbsOptions extends CopyDeps {
  config: { transferImage: string; bindRoots: readonly string[] }
  repos: Repos
  events: EventBus
  /** Seconds a backup or restore may run. */
  timeout: number
  now?: () => number
  /** When the service started (ms; now unless given): a schedule's first backup is due a period after it. */
  started?: number
}

export interface Run {
  signal?: AbortSignal
}

/** A streamed backup's messages: progress while restic reads, then its result or its failure. */
export type BackupMessage =
  | ({ type: "progress" } & Progress)
  | { type: "done"; result: BackupResult & { forgotten: number } }
  | { type: "failed"; error: { status: number; code: string; message: string } }

/** A stack's newest backup in a repository, and whether it is older than the repository's schedule allows. */
export interface StackBackupStatus {
  stack: string
  /** Whether the repository's schedule backs it up. */
  scheduled: boolean
  last_backup: string | null
  age_seconds: number | null
  /** When its next scheduled backup was or is due (ISO). */
  due: string | null
  /** Scheduled, and not backed up within the grace after `due` (as `overdue()` counts). */
  overdue: boolean
  /** The size read by the last backup since the service started. */
  last_size: number | null
}

/** A stack's backups into a repository since the service started: the last success (ms) and its size, the failures. */
export interface LastRun {
  repository: string
  stack: string
  last_success: number | null
  size: number | null
  failures: number
}

/** A scheduled backup not made in time. */
export interface OverdueBackup {
  repository: string
  stack: string
  schedule: string
  /** The last success since the service started (ISO), null when none. */
  last_success: string | null
  /** When the backup after the last success (or after the service started) was due (ISO). */
  due: string
  failures: number
}

/** How long after it is due a scheduled backup may take before it counts as overdue: one period of its schedule, at most an hour. */
const OVERDUE_GRACE_MS = 3_600_000

export class BackupVerbs {
  private readonly runs = new Map<string, LastRun>()
  /** The newest backup of each repository and stack that this process made or listed: a restore's head start (lib/backups/restore.ts). */
  private readonly newest = new Map<string, Backup>()
  private readonly started: number
  constructor(
    /** The parts of the service a backup or restore works with (the store, the engine, the cluster and its nodes, the repositories, the event bus) and its settings. */
    private readonly parts: BackupVerbsOptions,
  ) {
    this.started = parts.started ?? this.now()
  }

  private deadline(run: Run) {
    return { timeout: this.parts.timeout, signal: run.signal }
  }

  async repos(): Promise<(RepoView & { last_check: CheckResult | null })[]> {
    const checks = await this.parts.repos.checks()
    return (await this.parts.repos.all()).map((r) => ({ ...view(r), last_check: checks[r.name] ?? null }))
  }

  /** Adds a repository once restic opened it with the password (`init`: creates it first). */
  async addRepo(repo: Repo & { init?: boolean }, run: Run = {}): Promise<RepoView & { last_check: null }> {
    const { init, ...kept } = repo
    await restic(kept, init ? ["init"] : ["cat", "config"], { ...this.deadline(run), timeout: 120 })
    await this.parts.repos.add(kept)
    this.parts.events.publish({
      type: "backup",
      action: "repository_added",
      name: kept.name,
      level: "info",
      message: `backup repository ${kept.name} added`,
    })
    return { ...view(kept), last_check: null }
  }

  /** Replaces the repository's schedules, stacks, keep rules, hooks and rclone configuration; the schedules follow at once. */
  async editRepo(name: string, settings: RepoSettings): Promise<RepoView & { last_check: CheckResult | null }> {
    const repo = await this.parts.repos.update(name, settings)
    this.parts.events.publish({
      type: "backup",
      action: "repository_changed",
      name,
      level: "info",
      message: `backup repository ${name} changed`,
    })
    return { ...view(repo), last_check: (await this.parts.repos.checks())[name] ?? null }
  }

  /** Each stack's newest backup here in the repository (every stack here, and those with backups), overdue or not. */
  async status(repo: string, run: Run = {}): Promise<StackBackupStatus[]> {
    const r = await this.parts.repos.get(repo)
    const newest = await newestBackups(r, this.parts.serverId, this.deadline(run))
    const now = this.now()
    const scheduled = new Set(r.schedule ? (r.stacks ?? this.parts.stacks.names()) : [])
    return [...new Set([...this.parts.stacks.names(), ...newest.keys()])].sort().map((stack) => {
      const last = newest.get(stack) ?? null
      const late =
        r.schedule && scheduled.has(stack)
          ? this.lateness(r.schedule, last ? Date.parse(last) : this.started, now)
          : null
      return {
        stack,
        scheduled: scheduled.has(stack),
        last_backup: last,
        age_seconds: last === null ? null : Math.max(0, Math.round((now - Date.parse(last)) / 1000)),
        due: late ? new Date(late.due).toISOString() : null,
        overdue: late?.late ?? false,
        last_size: this.runs.get(`${repo}\t${stack}`)?.size ?? null,
      }
    })
  }

  /** Forgets the repository here (its snapshots stay in it). */
  async removeRepo(name: string): Promise<string> {
    await this.parts.repos.remove(name)
    await this.parts.repos.setCheck(name, null)
    this.parts.events.publish({
      type: "backup",
      action: "repository_removed",
      name,
      level: "info",
      message: `backup repository ${name} removed`,
    })
    return name
  }

  async backups(repo: string, stack: string, run: Run = {}): Promise<Backup[]> {
    const all = await listBackups(
      await this.parts.repos.get(repo),
      this.parts.serverId,
      stackName(stack),
      this.deadline(run),
    )
    if (all[0]) this.newest.set(`${repo}\t${stackName(stack)}`, all[0])
    return all
  }

  /** The stack backed up now, with `hooks` (else the repository's for the stack); with `keep`, its older backups forgotten and pruned after. */
  backup(
    repo: string,
    stack: string,
    run: Run & { keep?: Keep; hooks?: Hooks; binds?: boolean; progress?: (p: Progress) => void } = {},
  ): Promise<BackupResult & { forgotten: number }> {
    const name = stackName(stack)
    const key = `${repo}\t${name}`
    return this.reported("backup", name, () =>
      this.parts.stacks.lock(name, async () => {
        const last = this.runs.get(key) ?? {
          repository: repo,
          stack: name,
          last_success: null,
          size: null,
          failures: 0,
        }
        const r = await this.parts.repos.get(repo)
        const result = await backupStack(this.parts, {
          repo: r,
          stack: name,
          deadline: this.deadline(run),
          hooks: run.hooks ?? r.hooks?.[name],
          progress: run.progress,
          bindRoots: (run.binds ?? r.binds) ? this.parts.config.bindRoots : undefined,
        }).catch((err) => {
          this.runs.set(key, { ...last, failures: last.failures + 1 })
          throw err
        })
        this.runs.set(key, { ...last, last_success: this.now(), size: result.bytes })
        this.newest.set(key, {
          run: result.run,
          stack: name,
          version: result.version,
          time: new Date(this.now()).toISOString(),
          pieces: result.pieces.map(({ path, snapshot }) => ({ path, snapshot })),
        })
        const forgotten = run.keep
          ? await forget(r, { serverId: this.parts.serverId, stack: name, keep: run.keep }, this.deadline(run))
          : 0
        return {
          result: { ...result, forgotten },
          message: `backed up ${name} to ${repo} as ${result.run}: ${result.bytes} bytes read, ${result.added} new${forgotten ? `; ${forgotten} older snapshots forgotten` : ""}`,
        }
      }),
    )
  }

  /**
   * The same backup as messages for an event stream: restic's progress as it reads (a slow reader
   * gets the newest), then the result or the failure, and the end.
   */
  async *backupStream(
    repo: string,
    stack: string,
    run: Run & { keep?: Keep; hooks?: Hooks; binds?: boolean } = {},
  ): AsyncGenerator<BackupMessage> {
    const queue: BackupMessage[] = []
    let wake = () => {}
    const push = (m: BackupMessage) => {
      if (m.type === "progress" && queue.at(-1)?.type === "progress") queue[queue.length - 1] = m
      else queue.push(m)
      wake()
    }
    void this.backup(repo, stack, { ...run, progress: (p) => push({ type: "progress", ...p }) }).then(
      (result) => push({ type: "done", result }),
      (err: unknown) => push({ type: "failed", error: errorFields(err) }),
    )
    for (;;) {
      if (!queue.length) await new Promise<void>((resolve) => (wake = resolve))
      const m = queue.shift()!
      yield m
      if (m.type !== "progress") return
    }
  }

  /** The service's own state (its data directory but the stacks' folders) backed up into the repository now (lib/backups/state.ts). */
  backupState(repo: string, run: Run = {}): Promise<{ snapshot: string; bytes: number; added: number }> {
    return this.reported("state_backup", repo, async () => {
      const result = await backupState(
        await this.parts.repos.get(repo),
        this.parts.stacks.dataDir,
        this.parts.serverId,
        this.deadline(run),
      )
      return {
        result,
        message: `backed up the service's state to ${repo} as ${result.snapshot.slice(0, 8)}: ${result.bytes} bytes read, ${result.added} new`,
      }
    })
  }

  /** The state backups in the repository, newest first. */
  async stateBackups(repo: string, run: Run = {}): Promise<StateBackup[]> {
    return stateBackups(await this.parts.repos.get(repo), this.deadline(run))
  }

  /** What the metrics show: each stack's backups into each repository since the service started. */
  lastRuns(): LastRun[] {
    return [...this.runs.values()]
  }

  /**
   * The scheduled backups not made in time: for each repository with a schedule, each stack it backs
   * up whose next backup after its last success (or, with none since, after the service started) was
   * due more than a grace ago (one period of the schedule, at most an hour: a backup takes a while).
   */
  async overdue(): Promise<OverdueBackup[]> {
    const now = this.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    const late: OverdueBackup[] = []
    for (const repo of await this.parts.repos.all()) {
      if (!repo.schedule) continue
      for (const stack of repo.stacks ?? this.parts.stacks.names()) {
        const run = this.runs.get(`${repo.name}\t${stack}`)
        const { due, late: isLate } = this.lateness(repo.schedule, run?.last_success ?? this.started, now) ?? {}
        if (isLate && due !== undefined)
          late.push({
            repository: repo.name,
            stack,
            schedule: repo.schedule,
            last_success: run?.last_success ? iso(run.last_success) : null,
            due: iso(due),
            failures: run?.failures ?? 0,
          })
      }
    }
    return late
  }

  /** When the backup after `since` was due by `schedule`, and whether it is late: due more than a grace ago. */
  private lateness(schedule: string, since: number, now: number): { due: number; late: boolean } | null {
    const due = nextDue(schedule, since)
    if (due === null) return null
    const grace = Math.min(OVERDUE_GRACE_MS, (nextDue(schedule, due) ?? due) - due)
    return { due, late: now > due + grace }
  }

  /** `restic check` of the repository; its result is kept (across restarts) and shown with the repository. */
  async check(repo: string, run: Run = {}): Promise<CheckResult> {
    const r = await this.parts.repos.get(repo)
    const time = new Date(this.now()).toISOString()
    const result = await restic(r, ["check"], this.deadline(run)).then(
      () => ({ time, ok: true, message: "no errors were found" }),
      (err: unknown) => ({ time, ok: false, message: err instanceof Error ? err.message : String(err) }),
    )
    await this.parts.repos.setCheck(repo, result)
    this.parts.events.publish({
      type: "backup",
      action: result.ok ? "check" : "check_failed",
      name: repo,
      level: result.ok ? "info" : "error",
      message: `restic check of ${repo}: ${result.message}`,
    })
    return result
  }

  /**
   * Runs each repository's schedules until `signal`: its stacks (all when it names none) backed up,
   * each then forgotten by its keep, and `restic check`. A failure is its event; the loop goes on.
   */
  async schedules(signal: AbortSignal): Promise<void> {
    const last = new Map<string, number>()
    const start = this.now()
    while (!signal.aborted) {
      for (const repo of await this.parts.repos.all()) {
        for (const [kind, schedule] of [
          ["backup", repo.schedule],
          ["check", repo.check],
        ] as const) {
          const key = `${kind} ${repo.name}`
          const due = schedule ? nextDue(schedule, last.get(key) ?? start) : null
          if (due === null || due > this.now()) continue
          last.set(key, this.now())
          if (kind === "check") await this.check(repo.name, { signal })
          else
            for (const stack of repo.stacks ?? this.parts.stacks.names())
              await this.backup(repo.name, stack, { signal, keep: repo.keep }).catch(() => {})
          if (kind === "backup" && repo.state) await this.backupState(repo.name, { signal }).catch(() => {})
        }
      }
      await new Promise((done) => {
        const timer = setTimeout(done, 1000)
        signal.addEventListener("abort", () => done(clearTimeout(timer)), { once: true })
      })
    }
  }

  private now(): number {
    return (this.parts.now ?? Date.now)()
  }

  async restore(
    repo: string,
    stack: string,
    req: RestoreRequest & { run?: string },
    run: Run = {},
  ): Promise<RestoreResult> {
    const r = await this.parts.repos.get(repo)
    const key = `${repo}\t${stackName(stack)}`
    const finding = findBackup(
      r,
      { serverId: this.parts.serverId, stack: stackName(stack), run: req.run },
      this.deadline(run),
    )
    const target = stackName(req.as ?? stack)
    if (req.dry_run)
      return restoreStack(this.parts, req, { repo: r, found: await finding, deadline: this.deadline(run) })
    // The backup is looked up in the repository while the one this process last knew of starts coming.
    const known = this.newest.get(key)
    const guess = req.run === undefined || req.run === known?.run ? known : undefined
    finding.then((b) => req.run === undefined && this.newest.set(key, b)).catch(() => {})
    return this.reported("restore", target, async () => ({
      result: await restoreStack(this.parts, req, { repo: r, found: finding, deadline: this.deadline(run), guess }),
      message: `restored ${stack}'s backup ${(await finding).run} from ${repo} as ${target}${req.to === undefined ? "" : ` on node ${req.to}`}`,
    }))
  }

  private async reported<T>(
    action: string,
    name: string,
    fn: () => Promise<{ result: T; message: string }>,
  ): Promise<T> {
    try {
      const { result, message } = await fn()
      this.parts.events.publish({ type: "backup", action, name, level: "info", message })
      return result
    } catch (err) {
      this.parts.events.publish({
        type: "backup",
        action: `${action}_failed`,
        name,
        level: "error",
        message: `${action} of ${name} failed: ${err instanceof Error ? err.message : String(err)}`,
      })
      throw err
    }
  }
}
