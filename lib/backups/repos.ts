// The restic repositories this server backs up to, in <data>/backups/repos.json (sealed, 0600): a name,
// restic's repository string (a local path, sftp:, rest:, rclone:), its password and, for rclone:,
// the rclone configuration file to use. The password never leaves this module but to restic's
// environment. Each repository's last `restic check` is kept beside them (checks.json).
import { join } from "node:path"
import { readJson, writeJson, writeSealedJson } from "../data/datadir.ts"
import { conflict, notFound } from "../errors/errors.ts"
import { maskUrl } from "../credentials/urls.ts"
import type { Hooks } from "./hooks.ts"

/** How many of a stack's backups restic keeps: the last n, and the newest of each of so many hours, days, ... */
export interface Keep {
  last?: number
  hourly?: number
  daily?: number
  weekly?: number
  monthly?: number
  yearly?: number
}

export interface Repo {
  name: string
  repository: string
  password: string
  rclone_config?: string
  /** When its stacks are backed up (an interval or a cron expression), and which (all when absent). */
  schedule?: string
  stacks?: string[]
  /** What a scheduled backup keeps of each stack's backups (`forget --prune`). */
  keep?: Keep
  /** The hooks of each stack's backups (lib/backups/hooks.ts). */
  hooks?: Record<string, Hooks>
  /** When `restic check` runs. */
  check?: string
  /** Scheduled backups hold the stacks' bind mounts under SVC_BIND_ROOTS too. */
  binds?: boolean
  /** The schedule backs up the service's own state too (lib/backups/state.ts). */
  state?: boolean
}

/** What an edit of a repository may change. */
export type RepoSettings = Omit<Repo, "name" | "repository" | "password">

/** A repository as the API shows it: no password, and the repository string's own credentials masked. */
export type RepoView = Omit<Repo, "password">

export const view = ({ password: _, repository, ...rest }: Repo): RepoView => ({
  ...rest,
  repository: maskUrl(repository),
})

/** The last `restic check` of a repository. */
export interface CheckResult {
  time: string
  ok: boolean
  message: string
}

export class Repos {
  private readonly file: string
  private readonly checksFile: string
  constructor(dataDir: string) {
    this.file = join(dataDir, "backups", "repos.json")
    this.checksFile = join(dataDir, "backups", "checks.json")
  }

  /** Each repository's last `restic check`, kept across restarts (<data>/backups/checks.json). */
  checks(): Promise<Record<string, CheckResult>> {
    return readJson<Record<string, CheckResult>>(this.checksFile, {})
  }

  async setCheck(name: string, result: CheckResult | null): Promise<void> {
    const { [name]: _, ...rest } = await this.checks()
    writeJson(this.checksFile, result ? { ...rest, [name]: result } : rest)
  }

  all(): Promise<Repo[]> {
    return readJson<Repo[]>(this.file, [])
  }

  async get(name: string): Promise<Repo> {
    const repo = (await this.all()).find((r) => r.name === name)
    if (!repo) throw notFound(`no backup repository named ${name}`, "repository_not_found")
    return repo
  }

  async add(repo: Repo): Promise<void> {
    const all = await this.all()
    if (all.some((r) => r.name === repo.name))
      throw conflict(`a backup repository named ${repo.name} exists`, "repository_exists")
    writeSealedJson(this.file, [...all, repo])
  }

  /** Replaces what the repository's settings say (all but its name, its repository string and its password). */
  async update(name: string, settings: RepoSettings): Promise<Repo> {
    const all = await this.all()
    const old = all.find((r) => r.name === name)
    if (!old) throw notFound(`no backup repository named ${name}`, "repository_not_found")
    const repo: Repo = { name, repository: old.repository, password: old.password, ...settings }
    writeSealedJson(
      this.file,
      all.map((r) => (r.name === name ? repo : r)),
    )
    return repo
  }

  async remove(name: string): Promise<void> {
    const all = await this.all()
    if (!all.some((r) => r.name === name)) throw notFound(`no backup repository named ${name}`, "repository_not_found")
    writeSealedJson(
      this.file,
      all.filter((r) => r.name !== name),
    )
  }
}
