// The stack store: each stack in two folders, and the operations that change them, one at a time
// per stack (different stacks run side by side).
//
// `<dataDir>/records/<name>/`: what the service keeps of a stack. No container reaches it: the host
// path guard refuses a bind of the data directory outside a stack's own folder.
//   compose.yaml        the compose file as deployed (or as written by an import)
//   run.json      sealed  compose's own model of it as checked (lib/stacks/model.ts): what compose runs
//   files.json          the stack's other files {path: content} as the service wrote them
//   env.json      sealed  the environment [{key, value, secret}]
//   state.json          {orchestrator, current_version, env_pending, files_pending, files, last_version, created, updated}
//   versions/<n>.json sealed  {version, time, action, compose, env, files, changes}
// Sealed files are encrypted with the service's secret key (lib/data/sealed.ts); compose reads the run
// file, and the environment rendered as its env file, in the clear only in a room of its own while it
// runs (lib/stacks/compose.ts).
//   update-*.json       guarded updates' policy and history (lib/updates/records.ts)
//
// `<dataDir>/stacks/<name>/`: the stack's folder, compose's project directory. It holds a copy of the
// stack's files at their relative paths (where a bind finds them: lib/stacks/files.ts) and its data.
// Its containers may bind it and change anything in it at any moment, so nothing here is read back:
// compose runs on run.json, the files are the service's copies, and every write here goes through
// no-follow opens (a link a container planted is refused, never followed).
//
// What runs a stack is its orchestrator (lib/stacks/orchestrator.ts), chosen when it is created and
// kept in state.json: compose on the service's engine (absent), or a swarm (`orchestrator: "swarm"`,
// `docker stack`). The store asks it to check a candidate, bring the run file up and take it down;
// everything below holds for both. A redeploy that names the other one is a 409.
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
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { COMPOSE_FILE, ENV_FILE, type ComposeProject, type ComposeRunner } from "./compose.ts"
import { parseCompose, type CheckedModel, type StackModel } from "./model.ts"
import { composeOrchestrator } from "./compose-orchestrator.ts"
import {
  recordedOrchestrator,
  tailOf,
  type NamedOrchestrator,
  type Orchestrator,
  type OrchestratorName,
} from "./orchestrator.ts"
import {
  makeDirs,
  readJson,
  removeDurably,
  renameDurably,
  writeFileAtomic,
  writeJson,
  writeSealed,
  writeSealedJson,
} from "../data/datadir.ts"
import { readOpened } from "../data/sealed.ts"
import { crashPoint } from "../data/crash.ts"
import { beginIntent, endIntent } from "../data/intents.ts"
import { envChanges, mergeEnv, sameEnv, secretValues, type EnvInput, type EnvVar } from "./env.ts"
import { allowedIn, readIfFile, within } from "./host-paths.ts"
import { conflict, invalid, notFound, upstream } from "../errors/errors.ts"
import { isStackName, stackDirs, stackName } from "./name.ts"
import type { Engine } from "../engine/client.ts"
import {
  checkFiles,
  checkOnDisk,
  fileChanges,
  filePath,
  filePaths,
  makeFolder,
  readStackFile,
  removeFile,
  sameFiles,
  writeStackFile,
  type StackFiles,
} from "./files.ts"

export interface StackState {
  /** What runs the stack: absent for compose on the service's engine, else its name (lib/stacks/orchestrator.ts). */
  orchestrator?: NamedOrchestrator
  current_version: number | null
  env_pending: boolean
  /** The stack's files differ from the current version's (changed through writeFile/deleteFile, not yet applied). */
  files_pending?: boolean
  /** The stack's files besides compose.yaml (relative paths, sorted). */
  files?: string[]
  /** The services of its compose file as compose's model names them (absent for stacks kept before it was recorded). */
  services?: string[]
  /** The highest version number ever given; the next one is last_version + 1. */
  last_version: number
  created: string
  updated: string
  /** What the start recovered of an operation a killed process left (lib/service/recovery.ts), until the next release. */
  recovered?: { time: string; message: string }
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
  /** The git commit this version was deployed from (a git stack's sync). */
  commit?: string
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

/** What a stack's files are: its compose file, its environment and its other files. */
export interface StackRecords {
  compose: string
  env: EnvVar[]
  files: StackFiles
}

/** What `importStack` writes: a whole stack as another server's `read` gave it. */
export interface StackImport {
  name: string
  compose: string
  env: EnvVar[]
  files?: StackFiles
  versions: StackVersion[]
  current_version: number | null
  /** What runs it; absent for compose. */
  orchestrator?: NamedOrchestrator
}

export { parseCompose }

export const serviceNames = (text: string): string[] => {
  const services = parseCompose(text).services
  return services && typeof services === "object" ? Object.keys(services) : []
}

export interface StacksOptions {
  now?: () => number
  /** The engine compose runs stacks on: its orchestrator reads and acts on their containers, and the volumes a failed first deploy made are removed from it. */
  engine: Engine
  /** Host folders besides its own that a stack may mount (SVC_BIND_ROOTS). */
  hostRoots?: readonly string[]
  /**
   * Checks the bind mounts of a project's running containers (what the kernel mounted, not what the
   * names say now), taking down the ones that reached outside `allowed`; answers what it took down.
   */
  liveMounts?: (
    project: string,
    allowed: (path: string) => boolean,
  ) => Promise<{ service: string; destination: string; path: string }[]>
  /** What deploys a swarm stack (lib/stacks/swarm.ts); without it, a swarm stack is refused. */
  swarm?: Orchestrator
}

/**
 * How a compose run of an operation may end early: `signal` fires when its caller gives up (the
 * client went away). The undo after it runs to its own end, so the stack is left as it was.
 */
export interface Run {
  signal?: AbortSignal
}

/** A deploy's run: with `orchestrator`, what runs a new stack (compose when absent); an existing stack keeps its own. */
export interface DeployRun extends Run {
  orchestrator?: OrchestratorName
  /** The git commit the deployed files came from, recorded in the version. */
  commit?: string
  /** Only a new stack: a name taken by the time the deploy holds the stack's lock is 409 `stack_exists`. */
  fresh?: boolean
}

const RUN_FILE = "run.json"

/** What a removal's intent keeps (lib/data/intents.ts): whether its named volumes go too. */
export interface RemoveIntent {
  volumes: boolean
}

/** What a release's intent keeps for its undo (lib/data/intents.ts). */
export interface ReleaseIntent {
  /** The version the release makes current. */
  target: number
  /** The environment it deployed with. */
  env: EnvVar[]
  /** The paths of the stack's files it wrote. */
  written: string[]
  orchestrator: OrchestratorName
  adopted: boolean
  /** The stack as it was; null for a new one. */
  before: Pick<Stack, "compose" | "env" | "files" | "state"> | null
  /** The run file as it was. */
  ran_before: string | null
  /** The volumes of the project's name before a new stack's release (those made by it go in its undo). */
  volumes_before: string[] | null
}
const FILES_FILE = "files.json"

/** A state as the store keeps it in memory: shared by every answer, so changed by none. */
const frozen = (state: StackState): Readonly<StackState> =>
  Object.freeze({
    ...state,
    ...(state.files ? { files: Object.freeze([...state.files]) as string[] } : {}),
    ...(state.services ? { services: Object.freeze([...state.services]) as string[] } : {}),
  })

export class Stacks {
  private locks = new Map<string, Promise<unknown>>()
  /** Each stack's state (see `index`), and the names sorted, made again after a stack comes or goes. */
  private states: Map<string, Readonly<StackState>> | undefined
  private sorted: string[] | undefined
  /** Told of each stack that goes: what other rooms keep of it in memory goes with it. */
  private forgetters: ((name: string) => void)[] = []
  /** Each stack's secret values as last read; the store's own writes of its environment or state forget them. */
  private secretValues = new Map<string, string[]>()
  private readonly now: () => number
  private readonly engine: Engine
  private readonly hostRoots: readonly string[]
  private readonly liveMounts: StacksOptions["liveMounts"]
  /** What runs a stack, by name: compose always, a swarm where the service can deploy to one. */
  private readonly orchestrators: Partial<Record<OrchestratorName, Orchestrator>>

  constructor(
    readonly dataDir: string,
    private readonly compose: ComposeRunner,
    { now = Date.now, engine, hostRoots = [], liveMounts, swarm }: StacksOptions,
  ) {
    this.now = now
    this.engine = engine
    this.hostRoots = hostRoots
    this.liveMounts = liveMounts
    this.orchestrators = { compose: composeOrchestrator({ runner: compose, engine }), swarm }
  }

  get root(): string {
    return stackDirs(this.dataDir).folders
  }

  private get kept(): string {
    return stackDirs(this.dataDir).records
  }

  /** The stack's folder: compose's project directory, with the stack's files and data. Its containers may change anything in it. */
  dir(name: string): string {
    return join(this.root, stackName(name))
  }

  /** What the service keeps of the stack (compose file, model, environment, state, versions), where no container reaches. */
  records(name: string): string {
    return join(this.kept, stackName(name))
  }

  /** Whether a stack of that name is here (from memory). */
  has(name: string): boolean {
    return this.index().has(stackName(name))
  }

  /** Names of the stacks, sorted (from memory). */
  names(): string[] {
    this.sorted ??= [...this.index().keys()].sort()
    return [...this.sorted]
  }

  /**
   * Each stack's state as the store last wrote it. The records' state.json files are read once, by
   * the first question about the stacks; from then on the store's own writes keep it (every state a
   * stack gets, its first included, goes through `writeState`, and a stack goes through `forget`), so
   * that the lists and `has` read no file. A stack is one while its state.json is there.
   */
  private index(): Map<string, Readonly<StackState>> {
    if (this.states) return this.states
    const states = new Map<string, Readonly<StackState>>()
    for (const name of existsSync(this.kept) ? readdirSync(this.kept) : []) {
      const text = isStackName(name) ? readIfFile(join(this.kept, name, "state.json")) : undefined
      if (text) states.set(name, frozen(JSON.parse(text) as StackState))
    }
    this.states = states
    return states
  }

  /** Calls `fn` with the name of each stack that goes (removed, or its first deploy undone). */
  onForget(fn: (name: string) => void): void {
    this.forgetters.push(fn)
  }

  /**
   * The secret values of a stack (none for a name that is no stack), for redaction: its
   * environment's and its current version's, which run in its containers until the next apply.
   */
  secrets(name: string): string[] {
    if (!isStackName(name) || !this.has(name)) return []
    let values = this.secretValues.get(name)
    if (!values) {
      const rec = this.records(name)
      const kept = <T>(file: string, fallback: T): T => {
        const text = readOpened(join(rec, file))
        return text ? (JSON.parse(text) as T) : fallback
      }
      const current = this.index().get(name)?.current_version
      const running =
        current == null ? [] : (kept<Partial<StackVersion>>(join("versions", `${current}.json`), {}).env ?? [])
      values = [...new Set([...secretValues(kept<EnvVar[]>("env.json", [])), ...secretValues(running)])]
      this.secretValues.set(name, values)
    }
    return values
  }

  /** Which host paths a stack may reach: its own folder, SVC_BIND_ROOTS, and no other part of the data directory. */
  allows(name: string): (path: string) => boolean {
    return allowedIn(this.dir(name), this.hostRoots, this.dataDir)
  }

  /**
   * Moves what the service kept in a stack's folder before stacks had records (compose file,
   * environment, state, versions, update records) into its records, and its files' contents into
   * files.json; the folder keeps its data. Only regular files and folders move: a link a container
   * put there is left where it is and never followed. Answers the stacks moved.
   */
  migrate(): string[] {
    if (!existsSync(this.root)) return []
    const moved: string[] = []
    const plain = (path: string, folder = false) => {
      const st = lstatSync(path, { throwIfNoEntry: false })
      return !!st && (folder ? st.isDirectory() : st.isFile())
    }
    for (const name of readdirSync(this.root)) {
      const dir = join(this.root, name)
      if (!isStackName(name) || this.has(name) || !plain(join(dir, "state.json"))) continue
      const rec = this.records(name)
      makeDirs(rec)
      for (const f of [COMPOSE_FILE, "env.json", ENV_FILE, "update-policy.json", "update-history.json"])
        if (plain(join(dir, f))) renameDurably(join(dir, f), join(rec, f))
      if (plain(join(dir, "versions"), true)) {
        renameDurably(join(dir, "versions"), join(rec, "versions"))
        for (const v of readdirSync(join(rec, "versions")))
          if (!plain(join(rec, "versions", v))) rmSync(join(rec, "versions", v), { recursive: true, force: true })
      }
      const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as StackState
      const files = Object.fromEntries(
        (state.files ?? []).flatMap((p) => {
          const content = readStackFile(dir, p)
          return content === undefined ? [] : [[p, content]]
        }),
      )
      writeJson(join(rec, FILES_FILE), files)
      renameDurably(join(dir, "state.json"), join(rec, "state.json"))
      moved.push(name)
    }
    if (moved.length) this.states = this.sorted = undefined
    return moved
  }

  /** Runs `fn` after every earlier operation on this stack has finished. */
  lock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.locks.get(name) ?? Promise.resolve()).catch(() => {}).then(fn)
    this.locks.set(name, next)
    next.finally(() => this.locks.get(name) === next && this.locks.delete(name)).catch(() => {})
    return next
  }

  /** A stack's state alone (what runs it, its version, what is pending), from memory: no file is read. 404 if absent. */
  async state(name: string): Promise<StackState> {
    const state = this.index().get(stackName(name))
    if (!state) throw notFound(`no stack named ${name}`)
    return { ...state }
  }

  /** The whole stack, secrets included: compose file, environment, files, state and every version. 404 if absent. */
  async read(name: string): Promise<Stack> {
    const rec = this.records(name)
    if (!this.has(name)) throw notFound(`no stack named ${name}`)
    const versionsDir = join(rec, "versions")
    const files = existsSync(versionsDir) ? readdirSync(versionsDir).filter((f) => /^\d+\.json$/.test(f)) : []
    const versions = await Promise.all(files.map((f) => readJson<StackVersion>(join(versionsDir, f), null as never)))
    const state = await readJson<StackState>(join(rec, "state.json"), null as never)
    return {
      name,
      compose: await readFile(join(rec, COMPOSE_FILE), "utf8"),
      env: await readJson<EnvVar[]>(join(rec, "env.json"), []),
      files: await readJson<StackFiles>(join(rec, FILES_FILE), {}),
      state: { ...state, files_pending: state.files_pending ?? false, files: state.files ?? [] },
      versions: versions.sort((a, b) => a.version - b.version),
    }
  }

  async version(name: string, n: number): Promise<StackVersion> {
    const v = (await this.read(name)).versions.find((v) => v.version === n)
    if (!v) throw notFound(`stack ${name} has no version ${n}`)
    return v
  }

  /** The compose project of a stack: its folder as the project directory, and the checked model as the file compose runs. */
  project(name: string, env: EnvVar[]): ComposeProject {
    const rec = this.records(name)
    return { name, dir: this.dir(name), env, file: join(rec, RUN_FILE) }
  }

  /**
   * Deploys a compose file; `env` (if given) replaces the environment, null values keeping stored
   * ones; `files` (if given) replaces the stack's other files, else the stored ones stay. Adds a
   * version; `created` says whether the stack is new.
   */
  deploy(
    name: string,
    { compose, env, files }: { compose: string; env?: EnvInput; files?: StackFiles },
    run: DeployRun = {},
  ): Promise<{ stack: Stack; created: boolean }> {
    stackName(name)
    if (files) checkFiles(files)
    return this.lock(name, async () => {
      const created = !this.has(name)
      if (run.fresh && !created) throw conflict(`a stack named ${name} exists here`, "stack_exists")
      const stored = created ? undefined : await this.read(name)
      const own = stored?.state.orchestrator ?? "compose"
      if (stored && run.orchestrator && run.orchestrator !== own)
        throw conflict(
          `stack ${name} runs on ${own}, not ${run.orchestrator}: remove it first to run it on ${run.orchestrator}`,
          "orchestrator_mismatch",
        )
      const storedEnv = stored?.env ?? []
      const records = { compose, env: env ? mergeEnv(storedEnv, env) : storedEnv, files: files ?? stored?.files ?? {} }
      return { stack: await this.release(name, { ...records, action: "deploy" }, run), created }
    })
  }

  /** Redeploys with the stored environment and files and adds a version; clears env_pending and files_pending. */
  apply(name: string, run: Run = {}): Promise<Stack> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      return this.release(name, { compose: stack.compose, env: stack.env, files: stack.files, action: "apply" }, run)
    })
  }

  /** Redeploys the compose file, environment and files of version `n`, which becomes current; no version is added. */
  rollback(name: string, n: number, run: Run = {}): Promise<Stack> {
    return this.lock(name, async () => {
      const v = await this.version(name, n)
      return this.release(name, { compose: v.compose, env: v.env, files: v.files ?? {}, action: n }, run)
    })
  }

  /** One of the stack's files, as the service keeps it (404 when it has none at that path). */
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
      writeStackFile(this.dir(name), p, content)
      writeJson(join(this.records(name), FILES_FILE), files)
      return { stack: await this.filesChanged(stack, files), created: !Object.hasOwn(stack.files, p) }
    })
  }

  /** Removes one of the stack's files without deploying (404 when it has none at that path); as writeFile. */
  deleteFile(name: string, path: string): Promise<Stack> {
    const p = filePath(path)
    return this.lock(name, async () => {
      const stack = await this.read(name)
      if (!Object.hasOwn(stack.files, p)) throw notFound(`stack ${name} has no file ${p}`, "no_file")
      const files = Object.fromEntries(Object.entries(stack.files).filter(([k]) => k !== p))
      await this.model(name, stack.compose, stack.env, files)
      removeFile(this.dir(name), p)
      writeJson(join(this.records(name), FILES_FILE), files)
      return this.filesChanged(stack, files)
    })
  }

  /** Replaces the environment without deploying; env_pending says whether it differs from the current version's. */
  setEnv(name: string, input: EnvInput): Promise<Stack> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      const env = mergeEnv(stack.env, input)
      const current = stack.versions.find((v) => v.version === stack.state.current_version)
      await this.writeRecords(name, { compose: stack.compose, env })
      return this.writeState(name, { ...stack.state, env_pending: !current || !sameEnv(env, current.env) })
    })
  }

  deleteVersion(name: string, n: number): Promise<void> {
    return this.lock(name, async () => {
      const stack = await this.read(name)
      await this.version(name, n)
      if (stack.state.current_version === n)
        throw conflict(`version ${n} is the current version of ${name}`, "current_version")
      removeDurably(join(this.records(name), "versions", `${n}.json`))
    })
  }

  /** Brings the stack up as the service keeps it, adding no version; its model is checked again first. */
  up(name: string, run: Run = {}): Promise<Stack> {
    return this.lock(name, async () => {
      const { stack, project } = await this.ready(name)
      await this.orchestratorOf(stack.state).up(project, { signal: run.signal })
      await this.checkMounts(name)
      return stack
    })
  }

  /**
   * An update's pull: newer images for the stack's references, as it is kept here (its model checked
   * again first). "up" when its orchestrator brought them up too, "pulled" when the stack is still to be
   * brought up with them (`up`).
   */
  pull(name: string, run: Run = {}): Promise<"up" | "pulled"> {
    return this.lock(name, async () => {
      const { stack, project } = await this.ready(name)
      const pulled = await this.orchestratorOf(stack.state).pull(project, { signal: run.signal })
      if (pulled === "up") await this.checkMounts(name)
      return pulled
    })
  }

  /**
   * Stops and removes the stack's containers (or services) and networks (and named volumes with
   * `volumes`), then its folders. Answers whether it removed it: a stack here when asked and gone
   * once its turn came (a first deploy undone meanwhile) is not there to remove, and is no 404.
   */
  remove(name: string, opts: { volumes?: boolean } & Run = {}): Promise<boolean> {
    const known = this.has(name)
    return this.lock(name, async () => {
      if (known && !this.has(name)) return false
      const stack = await this.read(name)
      // A process killed from here on leaves the removal to be finished at start (`recoverRemove`).
      const intent = beginIntent<RemoveIntent>(this.dataDir, "remove", name, { volumes: opts.volumes ?? false })
      try {
        await this.runnable(name, stack)
        await this.orchestratorOf(stack.state).down(this.project(name, stack.env), {
          volumes: opts.volumes,
          signal: opts.signal,
        })
        crashPoint("remove.down")
        this.forget(name)
      } finally {
        endIntent(this.dataDir, intent)
      }
      return true
    })
  }

  /**
   * A removal whose process died midway (its intent left) is finished: the stack taken down again
   * (what `down` had removed stays removed) and its folders removed. Under the stack's lock.
   */
  recoverRemove(name: string, r: RemoveIntent): Promise<string> {
    return this.lock(name, async () => {
      if (this.has(name)) {
        const stack = await this.read(name)
        // Its folder may be gone already (removed before its records): compose runs in it.
        makeDirs(this.dir(name))
        await this.runnable(name, stack)
        await this.orchestratorOf(stack.state).down(this.project(name, stack.env), { volumes: r.volumes })
      }
      this.forget(name)
      return "its removal was cut short and is finished: the stack is gone"
    })
  }

  /**
   * Writes a compose project that runs on the engine without files here as a new stack and brings it
   * up (compose keeps every container whose config hash is unchanged): version 1, action "adopt". If
   * that fails the files go and the project's containers are left as they are.
   */
  adopt(name: string, records: StackRecords, run: Run = {}): Promise<Stack> {
    stackName(name)
    checkFiles(records.files)
    return this.lock(name, async () => {
      if (this.taken(name)) throw conflict(`a stack named ${name} already has files here`, "stack_exists")
      return this.release(name, { ...records, action: "adopt" }, run)
    })
  }

  /** Writes a stack from another server without deploying it. Refuses a taken name and a current_version not among the versions. */
  importStack(s: StackImport): Promise<Stack> {
    const name = stackName(s.name)
    return this.lock(name, async () => {
      if (this.taken(name)) throw conflict(`a stack named ${name} already has files here`, "stack_exists")
      const current = s.versions.find((v) => v.version === s.current_version)
      if (s.current_version !== null && !current)
        throw invalid(`current_version ${s.current_version} is not among the versions`, "invalid_import")
      const files = checkFiles(s.files ?? {})
      for (const v of s.versions) checkFiles(v.files ?? {})
      const { model, run } = await this.check(name, { compose: s.compose, env: s.env, files }, s.orchestrator)
      for (const v of s.versions) writeSealedJson(join(this.records(name), "versions", `${v.version}.json`), v)
      await this.writeRecords(name, { compose: s.compose, env: s.env, files, run })
      const time = new Date(this.now()).toISOString()
      const last = Math.max(0, ...s.versions.map((v) => v.version))
      return this.writeState(name, {
        ...recordedOrchestrator(s.orchestrator ?? "compose"),
        current_version: s.current_version,
        env_pending: !current || !sameEnv(s.env, current.env),
        files_pending: !current || !sameFiles(files, current.files ?? {}),
        files: filePaths(files),
        services: model.services,
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
   * write them; without them, the ones the service keeps.
   */
  async model(name: string, compose: string, env: EnvVar[], files?: StackFiles): Promise<StackModel> {
    return (await this.check(name, { compose, env, files })).model
  }

  /**
   * Runs a compose command (stopped at its deadline, or when `run.signal` fires: timed_out,
   * canceled); a non-zero exit is an upstream `compose_failed` carrying compose's own (redacted) message.
   */
  async must(project: ComposeProject, args: string[], action: string, run: Run = {}): Promise<string> {
    const { code, output } = await this.compose.run(project, args, action, { signal: run.signal })
    if (code !== 0) throw upstream(`compose ${args[0]} failed: ${tailOf(output)}`, "compose_failed")
    return output
  }

  /**
   * What runs a stack: the one its state names, or the one a new stack's deploy names; compose when
   * neither names one (a compose project made elsewhere too). A conflict `<name>_unavailable` for one
   * this service cannot run stacks on.
   */
  orchestratorOf(which: Pick<StackState, "orchestrator"> | OrchestratorName | undefined): Orchestrator {
    const name = (typeof which === "string" ? which : which?.orchestrator) ?? "compose"
    const orchestrator = this.orchestrators[name]
    if (!orchestrator)
      throw conflict(
        `${name} stacks are not available here: the service's engine is no ${name} manager it can deploy to`,
        `${name}_unavailable`,
      )
    return orchestrator
  }

  /** The model and its run file, checked by the stack's orchestrator (see `model`); `orchestrator` for a stack not yet written. */
  private async check(
    name: string,
    { compose, env, files }: Omit<StackRecords, "files"> & { files?: StackFiles },
    orchestrator?: OrchestratorName,
  ): Promise<CheckedModel> {
    const state = this.index().get(stackName(name))
    const candidate = files ?? (await readJson<StackFiles>(join(this.records(name), FILES_FILE), {}))
    return this.orchestratorOf(orchestrator ?? state).check({
      project: this.project(stackName(name), env),
      compose,
      roots: this.hostRoots,
      files: candidate,
      own: state?.files ?? [],
      dataDir: this.dataDir,
    })
  }

  /** Checks, writes, brings up; a new version (deploy/apply) or the rollback target (a number) becomes current. */
  private async release(
    name: string,
    { action, ...records }: StackRecords & { action: StackVersion["action"] | number },
    run: DeployRun,
  ): Promise<Stack> {
    const { compose, env, files } = records
    checkFiles(files)
    const before = this.has(name) ? await this.read(name) : undefined
    checkOnDisk(this.dir(name), files, before?.state.files ?? [])
    // An existing stack keeps its own (a deploy naming another was refused); a new one is run by the one its deploy names.
    const orchestrator = before ? (before.state.orchestrator ?? "compose") : (run.orchestrator ?? "compose")
    const checked = await this.check(name, records, orchestrator)
    const model = checked.model
    const ranBefore = before ? readOpened(this.project(name, before.env).file!) : undefined
    const volumesBefore = before ? undefined : await this.projectVolumes(name, orchestrator)
    const time = new Date(this.now()).toISOString()
    const state = before?.state ?? {
      ...recordedOrchestrator(orchestrator),
      current_version: null,
      env_pending: false,
      files_pending: false,
      files: filePaths(files),
      services: model.services,
      last_version: 0,
      created: time,
      updated: time,
    }
    const current = typeof action === "number" ? action : state.last_version + 1
    // What the failure path below needs, kept until the release ended: a process killed midway has the
    // start undo it (`recover`).
    const intent = beginIntent<ReleaseIntent>(this.dataDir, "release", name, {
      target: current,
      env,
      written: Object.keys(files),
      orchestrator,
      adopted: action === "adopt",
      before: before ? { compose: before.compose, env: before.env, files: before.files, state: before.state } : null,
      ran_before: ranBefore ?? null,
      volumes_before: volumesBefore ? [...volumesBefore] : null,
    })
    try {
      await this.writeRecords(name, { ...records, replaced: before?.state.files, run: checked.run })
      // A new stack is one from here on, with no version yet: listed as managed, its name and lock
      // held until its deploy succeeded or its undo is done.
      if (!before) await this.writeState(name, state)
      this.makeBindSources(name, model)
    } catch (err) {
      // A write refused (a full disk, a link in the stack's folder) leaves nothing behind for a stack that had nothing.
      if (before)
        await this.writeRecords(name, { ...before, replaced: Object.keys(files), run: ranBefore }).catch(() => {})
      else this.forget(name)
      endIntent(this.dataDir, intent)
      throw err
    }
    crashPoint("release.written")
    try {
      // The running containers were made with the current version's files (those kept may have changed since).
      const running =
        before?.versions.find((v) => v.version === before.state.current_version)?.files ?? before?.files ?? {}
      const recreate = before ? this.boundChanges(name, model, running, files) : []
      await this.orchestratorOf(orchestrator).up(this.project(name, env), { recreate, signal: run.signal })
      await this.checkMounts(name)
    } catch (err) {
      await this.restore(name, {
        env,
        before,
        written: files,
        ranBefore,
        adopted: action === "adopt",
        orchestrator,
        volumesBefore,
      })
      endIntent(this.dataDir, intent)
      throw err
    }
    crashPoint("release.up")
    if (typeof action !== "number") {
      const prev = before?.versions.find((v) => v.version === state.current_version)
      const changes: VersionChanges = {
        from: prev?.version ?? null,
        compose: prev?.compose !== compose,
        env: envChanges(prev?.env ?? [], env),
        files: fileChanges(prev?.files ?? {}, files),
      }
      writeSealedJson(join(this.records(name), "versions", `${current}.json`), {
        version: current,
        time,
        action,
        compose,
        env,
        files,
        changes,
        ...(run.commit ? { commit: run.commit } : {}),
      } satisfies StackVersion)
    }
    await this.writeState(name, {
      ...state,
      recovered: undefined,
      current_version: current,
      env_pending: false,
      files_pending: false,
      files: filePaths(files),
      services: model.services,
      last_version: Math.max(state.last_version, current),
    })
    endIntent(this.dataDir, intent)
    return this.read(name)
  }

  /** Notes on a kept stack what the start recovered of it (shown with the stack until its next release). */
  noteRecovered(name: string, message: string): Promise<void> {
    return this.lock(name, async () => {
      if (!this.has(name)) return
      const time = new Date(this.now()).toISOString()
      await this.writeState(name, { ...(await this.state(name)), recovered: { time, message } })
    })
  }

  /**
   * A release whose process died midway (its intent left): done when its version became current,
   * else undone as its failure path undoes it (the previous records back and the previous version
   * up, a new stack taken down and forgotten), a version it wrote but never made current removed.
   * Under the stack's lock; answers what was done, for the event.
   */
  recoverRelease(name: string, r: ReleaseIntent): Promise<string> {
    return this.lock(name, async () => {
      const state = this.has(name) ? await this.state(name) : undefined
      if (state?.current_version === r.target && existsSync(join(this.records(name), "versions", `${r.target}.json`)))
        return `its release of version ${r.target} had finished`
      if (r.before && state && r.target > state.last_version)
        removeDurably(join(this.records(name), "versions", `${r.target}.json`))
      const before = r.before && { name, ...r.before, versions: [] }
      const volumes = r.volumes_before ? new Set(r.volumes_before) : undefined
      const written = Object.fromEntries(r.written.map((p) => [p, ""]))
      await this.restore(name, {
        env: r.env,
        before: before ?? undefined,
        written,
        ranBefore: r.ran_before ?? undefined,
        adopted: r.adopted,
        orchestrator: r.orchestrator,
        volumesBefore: volumes,
        strict: true,
      })
      return before
        ? `its release of version ${r.target} was undone: version ${before.state.current_version ?? "none"} runs again`
        : "its first deploy was undone: what it made was removed"
    })
  }

  /**
   * After a failed `up`: the previous files and model come back and the previous version runs again;
   * a new stack is taken down with the volumes its orchestrator made for it, those of `volumesBefore`
   * left (an adopted one is not taken down: its containers were there before).
   */
  private async restore(
    name: string,
    failed: {
      /** The environment the failed `up` ran with. */
      env: EnvVar[]
      /** The stack before the change; none for a new one. */
      before: Stack | undefined
      /** The files the change wrote. */
      written: StackFiles
      /** The run file before the change. */
      ranBefore: string | undefined
      adopted: boolean
      orchestrator: OrchestratorName
      /** The volumes of the project's name there before a new stack's first `up`. */
      volumesBefore?: Set<string>
      /** Whether bringing the previous version up again must succeed (the recovery at start). */
      strict?: boolean
    },
  ): Promise<void> {
    const { before, orchestrator } = failed
    if (!before) {
      if (!failed.adopted) {
        await this.orchestratorOf(orchestrator)
          .down(this.project(name, failed.env), { action: "undo" })
          .catch(() => {})
        for (const v of await this.projectVolumes(name, orchestrator))
          if (!failed.volumesBefore?.has(v)) await this.engine.removeVolume(v).catch(() => {})
      }
      this.forget(name)
      return
    }
    await this.writeRecords(name, { ...before, replaced: Object.keys(failed.written), run: failed.ranBefore })
    if (before.state.current_version === null) return
    const up = this.runnable(name, before).then(() =>
      this.orchestratorOf(orchestrator).up(this.project(name, before.env), { action: "undo" }),
    )
    // The recovery at start fails (and is tried again) until the previous version runs; the failure
    // path of a release throws its own error.
    await (failed.strict ? up : up.catch(() => {}))
  }

  /** The volumes a project's orchestrator made for it on this engine. */
  private async projectVolumes(name: string, orchestrator: OrchestratorName): Promise<Set<string>> {
    return new Set(
      await this.orchestratorOf(orchestrator)
        .volumes(name)
        .catch(() => []),
    )
  }

  /** The stack with its model checked again, its run file written and its binds' sources made: ready to be brought up. */
  private async ready(name: string): Promise<{ stack: Stack; project: ComposeProject }> {
    const stack = await this.read(name)
    const project = this.project(name, stack.env)
    const { model, run } = await this.check(name, stack)
    writeSealed(project.file!, run)
    this.makeBindSources(name, model)
    return { stack, project }
  }

  /** Makes sure the stack has a run file (one kept before stacks had them gets one from its compose file). */
  private async runnable(name: string, stack: Stack): Promise<void> {
    const file = this.project(name, stack.env).file!
    if (existsSync(file)) return
    writeSealed(file, (await this.check(name, stack)).run)
  }

  /** Takes down the stack's containers whose binds reached outside what it may reach (400 `host_path_refused`). */
  private async checkMounts(name: string): Promise<void> {
    const escaped = (await this.liveMounts?.(name, this.allows(name))) ?? []
    if (!escaped.length) return
    const e = escaped[0]!
    throw invalid(
      `service ${e.service}: its bind at ${e.destination} reached ${e.path.slice(0, 200)}, outside the stack's folder and SVC_BIND_ROOTS (a link in the stack's folder); the container was taken down`,
      "host_path_refused",
    )
  }

  /** Bind sources in the stack's folder that do not exist yet are made as real folders, so that the engine follows no link a container put on the way. */
  private makeBindSources(name: string, model: StackModel): void {
    const dir = this.dir(name)
    for (const b of model.binds) {
      if (!within(b.source, dir) || b.source === dir || b.file) continue
      // What is there already (a folder, a file of its data) stays; the engine's mount is checked after `up`.
      if (!lstatSync(b.source, { throwIfNoEntry: false })) makeFolder(dir, b.source.slice(dir.length + 1))
    }
  }

  /** Whether anything of a stack by that name is here: its records or its folder. */
  private taken(name: string): boolean {
    return existsSync(this.records(name)) || existsSync(this.dir(name))
  }

  /** Removes both folders of a stack. */
  private forget(name: string): void {
    removeDurably(this.dir(name))
    removeDurably(this.records(name))
    this.secretValues.delete(name)
    if (this.index().delete(name)) this.sorted = undefined
    for (const fn of this.forgetters) fn(name)
  }

  /**
   * Writes the compose file, environment and (given) run file, and with `files` the stack's other
   * files too, in its folder and in its records, removing from its folder those of `replaced` (the
   * stack's files until now) that `files` drops.
   */
  private async writeRecords(
    name: string,
    {
      compose,
      env,
      files,
      replaced = [],
      run,
    }: Omit<StackRecords, "files"> & { files?: StackFiles; replaced?: readonly string[]; run?: string },
  ): Promise<void> {
    const rec = this.records(name)
    const dir = this.dir(name)
    makeDirs(rec)
    makeDirs(dir)
    writeFileAtomic(join(rec, COMPOSE_FILE), compose)
    if (run !== undefined) writeSealed(join(rec, RUN_FILE), run)
    writeSealedJson(join(rec, "env.json"), env)
    // The env file compose reads is rendered into its room when it runs; one an earlier release kept goes.
    removeDurably(join(rec, ENV_FILE))
    this.secretValues.delete(name)
    if (!files) return
    for (const [p, content] of Object.entries(files)) writeStackFile(dir, p, content)
    for (const p of replaced) if (!Object.hasOwn(files, p)) removeFile(dir, p)
    writeJson(join(rec, FILES_FILE), files)
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
    return this.writeState(stack.name, {
      ...stack.state,
      files: filePaths(files),
      files_pending: !current || !sameFiles(files, current.files ?? {}),
    })
  }

  private async writeState(name: string, state: StackState): Promise<Stack> {
    const written = frozen({ ...state, updated: new Date(this.now()).toISOString() })
    writeJson(join(this.records(name), "state.json"), written)
    if (!this.index().has(name)) this.sorted = undefined
    this.index().set(name, written)
    this.secretValues.delete(name)
    return this.read(name)
  }
}
