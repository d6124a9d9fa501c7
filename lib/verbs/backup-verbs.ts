// Backups of stacks (lib/backups): the repositories, a stack's backup under its lock, its restore
// (whose records the store writes under their own lock), each with one service event ({type: "backup", action,
// name, message}: names, runs and sizes, never a password or a value of the environment); a failed
// backup or restore is an error event.
import type { StackHost } from "../copy/export.ts"
import type { EventBus } from "../engine/events.ts"
import { backupStack, type BackupResult } from "../backups/backup.ts"
import { view, type Repo, type RepoView, type Repos } from "../backups/repos.ts"
import { restic } from "../backups/restic.ts"
import { restoreStack, type RestoreRequest, type RestoreResult } from "../backups/restore.ts"
import { findBackup, listBackups, type Backup } from "../backups/snapshots.ts"
import { stackName } from "../stacks/name.ts"

export interface BackupVerbsOptions extends StackHost {
  serverId: string
  repos: Repos
  events: EventBus
  /** Seconds a backup or restore may run. */
  timeout: number
}

export interface Run {
  signal?: AbortSignal
}

export class BackupVerbs {
  constructor(private readonly o: BackupVerbsOptions) {}

  private deadline(run: Run) {
    return { timeout: this.o.timeout, signal: run.signal }
  }

  async repos(): Promise<RepoView[]> {
    return (await this.o.repos.all()).map(view)
  }

  /** Adds a repository once restic opened it with the password (`init`: creates it first). */
  async addRepo(repo: Repo & { init?: boolean }, run: Run = {}): Promise<RepoView> {
    const { init, ...kept } = repo
    await restic(kept, init ? ["init"] : ["cat", "config"], { ...this.deadline(run), timeout: 120 })
    await this.o.repos.add(kept)
    this.o.events.publish({ type: "backup", action: "repository_added", name: kept.name, level: "info", message: `backup repository ${kept.name} added` })
    return view(kept)
  }

  async backups(repo: string, stack: string, run: Run = {}): Promise<Backup[]> {
    return listBackups(await this.o.repos.get(repo), this.o.serverId, stackName(stack), this.deadline(run))
  }

  backup(repo: string, stack: string, run: Run = {}): Promise<BackupResult> {
    const name = stackName(stack)
    return this.reported("backup", name, () =>
      this.o.stacks.lock(name, async () => {
        const result = await backupStack(this.o, await this.o.repos.get(repo), name, this.deadline(run))
        return { result, message: `backed up ${name} to ${repo} as ${result.run}: ${result.bytes} bytes read, ${result.added} new` }
      }),
    )
  }

  async restore(repo: string, stack: string, req: RestoreRequest & { run?: string }, run: Run = {}): Promise<RestoreResult> {
    const r = await this.o.repos.get(repo)
    const backup = await findBackup(r, this.o.serverId, stackName(stack), req.run, this.deadline(run))
    const target = stackName(req.as ?? stack)
    if (req.dry_run) return restoreStack(this.o, r, backup, req, this.deadline(run))
    return this.reported("restore", target, async () => ({
      result: await restoreStack(this.o, r, backup, req, this.deadline(run)),
      message: `restored ${stack}'s backup ${backup.run} from ${repo} as ${target}`,
    }))
  }

  private async reported<T>(action: string, name: string, fn: () => Promise<{ result: T; message: string }>): Promise<T> {
    try {
      const { result, message } = await fn()
      this.o.events.publish({ type: "backup", action, name, level: "info", message })
      return result
    } catch (err) {
      this.o.events.publish({ type: "backup", action: `${action}_failed`, name, level: "error", message: `${action} of ${name} failed: ${err instanceof Error ? err.message : String(err)}` })
      throw err
    }
  }
}
