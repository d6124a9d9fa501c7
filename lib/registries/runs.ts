// The docker CLI's configuration for one run of compose or `docker stack`: a folder of its own in the
// secret store (`<data>/secrets/docker/<pid>-<random>/`, 0700), its `config.json` (0600) holding the
// credentials of the registries that run's images need and nothing else (never the host's root
// configuration, never a folder a stack's containers may bind: the data directory outside a stack's
// own folder is refused to them), and the CLI's plugins reached through a link to the folder the
// service's own DOCKER_CONFIG keeps them in. The folder goes when the run ends; one a killed process
// left is removed by the next run. The folders made to hold the runs go with the last one, so that a
// run (a refused deploy's `compose config` among them) leaves the data directory as it found it.
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, symlinkSync } from "node:fs"
import { dirname, join } from "node:path"
import { alive, writeJson } from "../data/datadir.ts"
import { secretsDir } from "../data/secrets.ts"

/** A run's DOCKER_CONFIG: its folder, the registries it holds credentials for, and its removal. */
export interface RunConfig {
  dir: string
  registries: string[]
  close(): void
}

/** The docker CLI's config.json `auths`: the key is the registry host (Docker Hub's is its v1 URL). */
export type Auths = Record<string, { auth: string }>

/** Removes the run folders of processes that are gone. */
function sweep(root: string): void {
  for (const name of existsSync(root) ? readdirSync(root) : []) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1])
    if (pid && pid !== process.pid && !alive(pid)) rmSync(join(root, name), { recursive: true, force: true })
  }
}

/** Removes each of `folders` in turn while it is empty (another run's folder, or a kept registry's password, keeps it). */
function removeEmpty(...folders: string[]): void {
  for (const folder of folders)
    try {
      rmdirSync(folder)
    } catch {
      return
    }
}

/** Writes a run's DOCKER_CONFIG with `auths`; `plugins` is the folder of the CLI's plugins, linked when it exists. */
export function openRunConfig(dataDir: string, auths: Auths, plugins?: string): RunConfig {
  const root = join(secretsDir(dataDir), "docker")
  mkdirSync(root, { recursive: true, mode: 0o700 })
  sweep(root)
  const dir = join(root, `${process.pid}-${crypto.randomUUID()}`)
  mkdirSync(dir, { mode: 0o700 })
  writeJson(join(dir, "config.json"), { auths }, 0o600)
  if (plugins && existsSync(plugins)) symlinkSync(plugins, join(dir, "cli-plugins"))
  return {
    dir,
    registries: Object.keys(auths),
    close: () => {
      rmSync(dir, { recursive: true, force: true })
      removeEmpty(root, dirname(root))
    },
  }
}
