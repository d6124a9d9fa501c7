// The stack store: each stack's files under `<dataDir>/stacks/<name>/`, and the operations that
// change them, one at a time per stack (different stacks run side by side).
//
//   compose.yaml        the compose file as deployed (or as written by an import)
//   env.json      0600  the environment [{key, value, secret}], secrets in the clear
//   .env          0600  the same environment rendered for the compose CLI
//   state.json          {current_version, env_pending, files_pending, files, last_version, created, updated}
//   versions/<n>.json 0600  {version, time, action, compose, env, files, changes}
//   <path>              the stack's other files (`files` in state.json: lib/stacks/files.ts), each at
//                       its relative path, where compose finds it; anything else in the folder
//                       (`./data` bound into a container) is the stack's data and is left alone
//
// A version keeps the stack's files with its compose file and environment, so a rollback restores
// them; a file changed through `writeFile`/`deleteFile` waits for `apply` (files_pending) as the
// environment does. The guard sees a candidate's files before anything is written.
//
// Rules: a successful deploy or apply adds version last_version+1 (numbers are never reused, even
// after a deletion) and becomes current; a rollback redeploys a stored version and makes it current
// without adding one; the current version cannot be deleted. A compose file that does not parse,
// that compose refuses, or whose model (compose's own, resolved as if it lay in the stack's folder:
// lib/stacks/model.ts) reaches a host path outside the stack's folder is a 400 and nothing is
// written (deploy, apply, rollback, import and up alike); when `up` fails, the previous files come
// back and the previous version is brought up again.
//
// For other parts of the service (copy, export, import, up, adopt): `read` gives the whole stack,
// `importStack` writes one without deploying, `adopt` writes a compose project made elsewhere and
// brings it up as version 1 (compose keeps the containers whose config hash is unchanged), `up` brings a stack up without adding a version, and
// `lock` runs any work of their own under the stack's lock.
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { COMPOSE_FILE, ENV_FILE, type ComposeProject, type ComposeRunner } from "./compose.ts"
import { candidateModel, parseCompose, type StackModel } from "./model.ts"
import { readJson, writeFileAtomic, writeJson } from "../data/datadir.ts"
import { envChanges, mergeEnv, renderEnvFile, sameEnv, type EnvInput, type EnvVar } from "./env.ts"
import { badRequest, conflict, HttpError, notFound } from "../http/http-error.ts"
import { isStackName, stackName } from "./name.ts"
import { checkFiles, checkOnDisk, fileChanges, filePath, filePaths, plainFile, removeFile, sameFiles, type StackFiles } from "./files.ts"

export interface StackState {
  current_version: number | null
  env_pending: boolean
  /** The stack's files differ from the current version's (changed through writeFile/deleteFile, not yet applied). */
  files_pending?: boolean
  /** The stack's files besides compose.yaml (relative paths, sorted). */
  files?: string[]
  /** The highest version number ever given; the next one is last_version + 1. */
  last_version: number
  created: string
  updated: string
}

export interface VersionChanges {
  /** The version this one replaced (null for the first). */
  from: number | null
  compose: boolean
  env: { added: string[]; removed: string[]; changed: string[] }
  /** The stack's files added, removed and changed (absent in versions made before stacks had files). */
  files?: { added: string[]; removed: string[]; changed: string[] }
}

export interface StackVersion {
  version: number
  time: string
  action: "deploy" | "apply" | "adopt"
  compose: string
  env: EnvVar[]
  /** The stack's files in this version (absent: none). */
  files?: StackFiles
  changes: VersionChanges
}

export interface Stack {
  name: string
  compose: string
  env: EnvVar[]
  /** The stack's files as they lie on disk (relative path → content). */
  files: StackFiles
  state: StackState
  /** Oldest first. */
  versions: StackVersion[]
}

/** What `importStack` writes: a whole stack as another server's `read` gave it. */
export interface StackImport {
  name: string
  compose: string
  env: EnvVar[]
  files?: StackFiles
  versions: StackVersion[]
  current_version: number | null
}

const SECRET = 0o600

export { parseCompose }

export const serviceNames = (text: string): string[] => {
  const services = parseCompose(text).services
  return services && typeof services === "object" ? Object.keys(services) : []
}

/** The last lines of compose's output, as an error message. */
const tailOf = (output: string) => output.split("\n").slice(-20).join("\n") || "no output"

export class Stacks {
  private locks = new Map<string, Promise<unknown>>()

  constructor(
    readonly dataDir: string,
    private compose: ComposeRunner,
    private now: () => number = Date.now,
    /** Host folders besides its own that a stack may mount (SVC_BIND_ROOTS). */
    private hostRoots: readonly string[] = [],
  ) {}

  get root(): string {
    return join(this.dataDir, "stacks")
  }

  dir(name: string): string {
    return join(this.root, stackName(name))
  }

  has(name: string): boolean {
    return existsSync(join(this.dir(name), "state.json"))
  }

  /** Names of the stacks on disk, sorted. */
  names(): string[] {
    if (!existsSync(this.root)) return []
    return readdirSync(this.root).filter((n) => isStackName(n) && this.has(n)).sort()
  }

  /** Runs `fn` after every earlier operation on this stack has finished. */
  lock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.locks.get(name) ?? Promise.resolve()).catch(() => {}).then(fn)
    this.locks.set(name, next)
    next.finally(() => this.locks.get(name) === next && this.locks.delete(name)).catch(() => {})
    return next
  }

  /** The whole stack, secrets included: compose file, environment, state and every version. 404 if absent. */
  async read(name: string): Promise<Stack> {
    const dir = this.dir(name)
    if (!this.has(name)) throw notFound(`no stack named ${name}`)
    const versionsDir = join(dir, "versions")
    const files = existsSync(versionsDir) ? readdirSync(versionsDir).filter((f) => /^\d+\.json$/.test(f)) : []
    const versions = await Promise.all(files.map((f) => readJson<StackVersion>(join(versionsDir, f), null as never)))
    const state = await readJson<StackState>(join(dir, "state.json"), null as never)
    return {
      name,
      compose: await readFile(join(dir, COMPOSE_FILE), "utf8"),
      env: await readJson<EnvVar[]>(join(dir, "env.json"), []),
      files: await this.readFiles(dir, state.files ?? []),
      state: { ...state, files_pending: state.files_pending ?? false, files: state.files ?? [] },
      versions: versions.sort((a, b) => a.version - b.version),
    }
  }

  async version(name: string, n: number): Promise<StackVersion> {
    const v = (await this.read(name)).versions.find((v) => v.version === n)
    if (!v) throw notFound(`stack ${name} has no version ${n}`)
    return v
  }

  project(name: string, env: EnvVar[]): ComposeProject {
    return { name, dir: this.dir(name), env }
  }

  /**
   * Deploys a compose file; `env` (if given) replaces the environment, null values keeping stored
   * ones; `files` (if given) replaces the stack's other files, else the stored ones stay. Adds a
   * version; `created` says whether the stack is new.
   */
  deploy(name: string, compose: string, env?: EnvInput, files?: StackFiles): Promise<{ stack: Stack; created: boolean }> {
    stackName(name)
    if (files) checkFiles(files)
    return this.lock(name, async () => {
      const created = !this.has(name)
      const stored = created ? undefined : await this.read(name)
      const storedEnv = stored?.env ?? []
      const candidate = files ?? stored?.files ?? {}
      return { stack: await this.release(name, compose, env ? mergeEnv(storedEnv, env) : storedEnv, "deploy", candidate), created }
    })
  }

  /** Redeploys with the stored environment and files and adds a version; clears env_pending and files_pending. */
  apply(name: string): Promise<Stack> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      return this.release(name, stack.compose, stack.env, "apply", stack.files)
    })
  }

  /** Redeploys the compose file, environment and files of version `n`, which becomes current; no version is added. */
  rollback(name: string, n: number): Promise<Stack> {
    return this.lock(name, async () => {
      const v = await this.version(name, n)
      return this.release(name, v.compose, v.env, n, v.files ?? {})
    })
  }

  /** One of the stack's files (404 when it has none at that path). */
  async file(name: string, path: string): Promise<string> {
    const p = filePath(path)
    const stack = await this.read(name)
    if (!Object.hasOwn(stack.files, p)) throw notFound(`stack ${name} has no file ${p}`, "no_file")
    return stack.files[p]!
  }

  /**
   * Writes one of the stack's files without deploying (files_pending says whether the files differ
   * from the current version's; `apply` deploys them). Compose's model of the stack with the new file
   * is checked first, as on deploy. `created` says whether the file is new.
   */
  writeFile(name: string, path: string, content: string): Promise<{ stack: Stack; created: boolean }> {
    const p = filePath(path)
    return this.lock(name, async () => {
      const stack = await this.read(name)
      const files = checkFiles({ ...stack.files, [p]: content })
      checkOnDisk(this.dir(name), { [p]: content }, stack.state.files ?? [])
      await this.model(name, stack.compose, stack.env, files)
      writeFileAtomic(join(this.dir(name), p), content)
      return { stack: await this.filesChanged(stack, files), created: !Object.hasOwn(stack.files, p) }
    })
  }

  /** Removes one of the stack's files without deploying (404 when it has none at that path); as writeFile. */
  deleteFile(name: string, path: string): Promise<Stack> {
    const p = filePath(path)
    return this.lock(name, async () => {
      const stack = await this.read(name)
      if (!Object.hasOwn(stack.files, p)) throw notFound(`stack ${name} has no file ${p}`, "no_file")
      const { [p]: _gone, ...files } = stack.files
      await this.model(name, stack.compose, stack.env, files)
      removeFile(this.dir(name), p)
      return this.filesChanged(stack, files)
    })
  }

  /** Replaces the environment without deploying; env_pending says whether it differs from the current version's. */
  setEnv(name: string, input: EnvInput): Promise<Stack> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      const env = mergeEnv(stack.env, input)
      const current = stack.versions.find((v) => v.version === stack.state.current_version)
      await this.writeFiles(name, stack.compose, env)
      return this.writeState(name, { ...stack.state, env_pending: !current || !sameEnv(env, current.env) })
    })
  }

  deleteVersion(name: string, n: number): Promise<void> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      await this.version(name, n)
      if (stack.state.current_version === n) throw conflict(`version ${n} is the current version of ${name}`, "current_version")
      rmSync(join(this.dir(name), "versions", `${n}.json`))
    })
  }

  /** Brings the stack up as it lies on disk (after a pull with `pull`), adding no version. */
  up(name: string, opts: { pull?: boolean } = {}): Promise<Stack> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      const project = this.project(name, stack.env)
      await this.model(name, stack.compose, stack.env)
      if (opts.pull) await this.must(project, ["pull"], "pull")
      await this.must(project, ["up", "-d", "--remove-orphans"], "up")
      return stack
    })
  }

  /** Stops and removes the stack's containers and networks (and named volumes with `volumes`), then its files. */
  remove(name: string, opts: { volumes?: boolean } = {}): Promise<void> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      await this.must(this.project(name, stack.env), ["down", "--remove-orphans", ...(opts.volumes ? ["--volumes"] : [])], "down")
      rmSync(this.dir(name), { recursive: true, force: true })
    })
  }

  /**
   * Writes a compose project that runs on the engine without files here as a new stack and brings it
   * up (compose keeps every container whose config hash is unchanged): version 1, action "adopt". If
   * that fails the files go and the project's containers are left as they are.
   */
  adopt(name: string, compose: string, env: EnvVar[], files: StackFiles): Promise<Stack> {
    stackName(name)
    checkFiles(files)
    return this.lock(name, async () => {
      if (existsSync(this.dir(name))) throw conflict(`a stack named ${name} already has files here`, "stack_exists")
      return this.release(name, compose, env, "adopt", files)
    })
  }

  /** Writes a stack from another server without deploying it. Refuses a taken name and a current_version not among the versions. */
  importStack(s: StackImport): Promise<Stack> {
    const name = stackName(s.name)
    return this.lock(name, async () => {
      if (existsSync(this.dir(name))) throw conflict(`a stack named ${name} already has files here`, "stack_exists")
      const current = s.versions.find((v) => v.version === s.current_version)
      if (s.current_version !== null && !current) throw badRequest(`current_version ${s.current_version} is not among the versions`, "invalid_import")
      const files = checkFiles(s.files ?? {})
      for (const v of s.versions) checkFiles(v.files ?? {})
      await this.model(name, s.compose, s.env, files)
      for (const v of s.versions) writeJson(join(this.dir(name), "versions", `${v.version}.json`), v, SECRET)
      await this.writeFiles(name, s.compose, s.env, files)
      const time = new Date(this.now()).toISOString()
      const last = Math.max(0, ...s.versions.map((v) => v.version))
      return this.writeState(name, {
        current_version: s.current_version,
        env_pending: !current || !sameEnv(s.env, current.env),
        files_pending: !current || !sameFiles(files, current.files ?? {}),
        files: filePaths(files),
        last_version: last,
        created: time,
        updated: time,
      })
    })
  }

  /**
   * Compose's model of a compose file and environment for this stack, resolved as if they lay in its
   * folder, checked before anything is written: 400 `invalid_compose` for a file that is not YAML or
   * that compose refuses, 400 `host_path_refused` for a host path outside the stack folder and
   * SVC_BIND_ROOTS (lib/stacks/model.ts). `files` are the stack's other files as the deploy will
   * write them; without them, the ones on disk.
   */
  async model(name: string, compose: string, env: EnvVar[], files?: StackFiles): Promise<StackModel> {
    const dir = this.dir(name)
    const own = this.has(name) ? ((await readJson<StackState>(join(dir, "state.json"), null as never)).files ?? []) : []
    const candidate = files ?? (await this.readFiles(dir, own))
    return candidateModel(this.compose, { project: this.project(stackName(name), env), compose, roots: this.hostRoots, files: candidate, own })
  }

  /** Runs a compose command; a non-zero exit is an HttpError carrying compose's own (redacted) message. */
  async must(project: ComposeProject, args: string[], action: string, status = 502, code = "compose_failed"): Promise<string> {
    const { code: exit, output } = await this.compose.run(project, args, action)
    if (exit !== 0) throw new HttpError(status, code, `compose ${args[0]} failed: ${tailOf(output)}`)
    return output
  }

  /** Checks, writes, brings up; a new version (deploy/apply) or the rollback target (a number) becomes current. */
  private async release(name: string, compose: string, env: EnvVar[], action: StackVersion["action"] | number, files: StackFiles): Promise<Stack> {
    checkFiles(files)
    const before = this.has(name) ? await this.read(name) : undefined
    checkOnDisk(this.dir(name), files, before?.state.files ?? [])
    const model = await this.model(name, compose, env, files)
    try {
      await this.writeFiles(name, compose, env, files, before?.state.files)
    } catch (err) {
      // A write refused (a full disk) leaves no folder behind for a stack that had none.
      if (!before) rmSync(this.dir(name), { recursive: true, force: true })
      throw err
    }
    try {
      await this.must(this.project(name, env), ["up", "-d", "--remove-orphans"], "up")
      // The running containers were made with the current version's files (those on disk may have changed since).
      const running = before?.versions.find((v) => v.version === before.state.current_version)?.files ?? before?.files ?? {}
      const recreate = this.boundChanges(name, model, running, files)
      if (before && recreate.length) await this.must(this.project(name, env), ["up", "-d", "--no-deps", "--force-recreate", ...recreate], "up")
    } catch (err) {
      await this.restore(name, env, before, files, action === "adopt")
      throw err
    }
    const time = new Date(this.now()).toISOString()
    const state = before?.state ?? { current_version: null, env_pending: false, last_version: 0, created: time, updated: time }
    let current = typeof action === "number" ? action : state.last_version + 1
    if (typeof action !== "number") {
      const prev = before?.versions.find((v) => v.version === state.current_version)
      const changes: VersionChanges = {
        from: prev?.version ?? null,
        compose: prev?.compose !== compose,
        env: envChanges(prev?.env ?? [], env),
        files: fileChanges(prev?.files ?? {}, files),
      }
      writeJson(join(this.dir(name), "versions", `${current}.json`), { version: current, time, action, compose, env, files, changes } satisfies StackVersion, SECRET)
    }
    await this.writeState(name, { ...state, current_version: current, env_pending: false, files_pending: false, files: filePaths(files), last_version: Math.max(state.last_version, current) })
    return this.read(name)
  }

  /**
   * After a failed `up`: the previous files come back and the previous version runs again; a new
   * stack is taken down (an adopted one is not: its containers were there before).
   */
  private async restore(name: string, env: EnvVar[], before: Stack | undefined, written: StackFiles, adopted = false): Promise<void> {
    if (!before) {
      if (!adopted) await this.compose.run(this.project(name, env), ["down", "--remove-orphans"], "undo").catch(() => {})
      rmSync(this.dir(name), { recursive: true, force: true })
      return
    }
    await this.writeFiles(name, before.compose, before.env, before.files, Object.keys(written))
    if (before.state.current_version !== null) await this.compose.run(this.project(name, before.env), ["up", "-d", "--remove-orphans"], "undo").catch(() => {})
  }

  /**
   * Writes the compose file and environment, and with `files` the stack's other files too, removing
   * those of `replaced` (the stack's files until now) that `files` drops.
   */
  private async writeFiles(name: string, compose: string, env: EnvVar[], files?: StackFiles, replaced: readonly string[] = []): Promise<void> {
    const dir = this.dir(name)
    mkdirSync(dir, { recursive: true })
    writeFileAtomic(join(dir, COMPOSE_FILE), compose)
    writeJson(join(dir, "env.json"), env, SECRET)
    writeFileAtomic(join(dir, ENV_FILE), renderEnvFile(env, await this.compose.flavour()), SECRET)
    if (!files) return
    for (const [p, content] of Object.entries(files)) writeFileAtomic(join(dir, p), content)
    for (const p of replaced) if (!Object.hasOwn(files, p)) removeFile(dir, p)
  }

  /** The stack's files listed in state.json, as they lie on disk (one missing, or reached through a symlink, is left out). */
  private async readFiles(dir: string, paths: readonly string[]): Promise<StackFiles> {
    const files: StackFiles = {}
    for (const p of paths) {
      if (!plainFile(dir, p)) continue
      try {
        files[p] = await readFile(join(dir, p), "utf8")
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err
      }
    }
    return files
  }

  /**
   * The services that bind one of the stack's files whose content changed. A file is replaced whole
   * (a new inode), and a container keeps the inode it was given: compose does not recreate it for a
   * changed file, so these are recreated to see the new content. (A bound folder shows the new file.)
   */
  private boundChanges(name: string, model: StackModel, before: StackFiles, after: StackFiles): string[] {
    const { added, removed, changed } = fileChanges(before, after)
    const sources = new Set([...added, ...removed, ...changed].map((p) => join(this.dir(name), p)))
    return [...new Set(model.binds.filter((b) => b.file && sources.has(b.source)).map((b) => b.service))].sort()
  }

  /** After writeFile/deleteFile: the file list and whether it differs from the current version's. */
  private filesChanged(stack: Stack, files: StackFiles): Promise<Stack> {
    const current = stack.versions.find((v) => v.version === stack.state.current_version)
    return this.writeState(stack.name, { ...stack.state, files: filePaths(files), files_pending: !current || !sameFiles(files, current.files ?? {}) })
  }

  private async writeState(name: string, state: StackState): Promise<Stack> {
    writeJson(join(this.dir(name), "state.json"), { ...state, updated: new Date(this.now()).toISOString() })
    return this.read(name)
  }
}
