// The restic repositories this server backs up to, in <data>/backups/repos.json (mode 0600): a name,
// restic's repository string (a local path, sftp:, rest:, rclone:), its password and, for rclone:,
// the rclone configuration file to use. The password never leaves this module but to restic's
// environment.
import { join } from "node:path"
import { readJson, writeJson } from "../data/datadir.ts"
import { conflict, notFound } from "../http/http-error.ts"

export interface Repo {
  name: string
  repository: string
  password: string
  rclone_config?: string
}

/** A repository as the API shows it: no password. */
export type RepoView = Omit<Repo, "password">

export const view = ({ password: _, ...rest }: Repo): RepoView => rest

export class Repos {
  private readonly file: string
  constructor(dataDir: string) {
    this.file = join(dataDir, "backups", "repos.json")
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
    if (all.some((r) => r.name === repo.name)) throw conflict(`a backup repository named ${repo.name} exists`, "repository_exists")
    writeJson(this.file, [...all, repo], 0o600)
  }
}
