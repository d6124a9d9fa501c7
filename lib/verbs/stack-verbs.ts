// Every operation on a stack, in one place: the store's operation (which keeps the stack's lock and
// its versions), the health watch through the update guard when one is asked for, and one service
// event on the bus once it succeeded ({type: "stack", action: <verb>, name, message}: names, versions
// and counts, never a value of the environment). Each verb answers what the API answers.
import type { Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import { conflict, notFound } from "../errors/errors.ts"
import { exportStack, importStack, type ImportBody, type StackExport } from "../copy/export.ts"
import { pushChange, type WriteBack } from "../git/push.ts"
import { readSource, writeSource } from "../git/source.ts"
import { adoptProject, type AdoptPlan, type AdoptRequest } from "../stacks/adopt.ts"
import type { ComposeRunner } from "../stacks/compose.ts"
import { publicEnv, type EnvInput } from "../stacks/env.ts"
import { filePath, type StackFiles } from "../stacks/files.ts"
import type { OrchestratorName, StackAction, StackView } from "../stacks/orchestrator.ts"
import { stackView } from "../stacks/state.ts"
import type { Run, Stacks } from "../stacks/store.ts"
import type { UpdateGuard } from "../updates/guard.ts"
import type { UpdateOutcome } from "../updates/records.ts"
import { adoptContainers, type ContainersPlan } from "./adopt-containers.ts"

export interface VerbsOptions {
  stacks: Stacks
  engine: Engine
  /** The compose runner, for the files of a project to adopt. */
  compose: ComposeRunner
  guard: UpdateGuard
  events: EventBus
  config: { bindRoots: string[]; secretKeys: string[]; transferImage: string }
}

/**
 * `watch`: seconds of health watch after the change; a failed watch goes back to what ran before.
 * `signal`: the caller gave up (the client went away): compose is stopped and the change undone.
 */
export interface Watch extends Run {
  watch?: number
  /** What runs a stack a deploy creates. */
  orchestrator?: OrchestratorName
}

/** A stack after a change: with `update` when it was watched. */
export type Changed = StackView & { update?: UpdateOutcome }

const past: Record<StackAction, string> = {
  start: "started",
  stop: "stopped",
  restart: "restarted",
  pause: "paused",
  unpause: "unpaused",
}

/** Who asked for an edit, for the commit message of a git stack's write-back. */
const byWhom = (user: string | undefined) => (user ? `by ${user}` : "(sign-in off)")

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`

export class StackVerbs {
  constructor(
    /** The parts of the service the verbs work with: the store, the engine, the compose runner, the update guard, the event bus and the settings they read. */
    private readonly parts: VerbsOptions,
  ) {}

  /** Compose file, environment (when given) and files (when given) deployed as a new version; `created` for a new stack (run by `orchestrator`, compose unless named); with `fresh` only a new one. */
  async deploy(
    name: string,
    compose: string,
    opts: { env?: EnvInput; files?: StackFiles; commit?: string; by?: string; fresh?: boolean } & Watch = {},
  ): Promise<{ stack: Changed; created: boolean }> {
    // A new stack only (`fresh`: a taken name is 409 stack_exists under the lock) has no repository to write back to.
    const pushed =
      opts.commit || opts.fresh
        ? undefined
        : await this.writeBack(
            name,
            async () => {
              const stored = await this.parts.stacks.read(name)
              await this.parts.stacks.model(name, compose, stored.env, opts.files)
              const removed = opts.files ? Object.keys(stored.files).filter((p) => !Object.hasOwn(opts.files!, p)) : []
              return {
                compose,
                files: { ...opts.files, ...Object.fromEntries(removed.map((p) => [p, null])) },
                message: `Deploy ${name} (POST /api/stacks) ${byWhom(opts.by)}`,
              }
            },
            opts.signal,
          )
    let created = false
    const stack = await this.changed(name, "deploy", opts, async () => {
      const deployed = await this.parts.stacks.deploy(
        name,
        { compose, env: opts.env, files: opts.files },
        { ...opts, commit: opts.commit ?? pushed },
      )
      created = deployed.created
      return `${created ? "created" : "deployed"} ${name} as version ${deployed.stack.state.current_version}`
    })
    return { stack, created }
  }

  /** The stored environment and files deployed as a new version. */
  apply(name: string, opts: Watch = {}): Promise<Changed> {
    return this.changed(
      name,
      "apply",
      opts,
      async () => `applied ${name} as version ${(await this.parts.stacks.apply(name, opts)).state.current_version}`,
    )
  }

  /** Version `version` deployed again; it becomes current. */
  rollback(name: string, version: number, opts: Watch = {}): Promise<Changed> {
    return this.changed(name, "rollback", opts, async () => {
      await this.parts.stacks.rollback(name, version, opts)
      return `rolled ${name} back to version ${version}`
    })
  }

  /** The guarded update: pin, pull, and when an image moved: up, watch, and roll back on failure. */
  async update(name: string, opts: Watch = {}): Promise<Changed> {
    await this.parts.stacks.read(name)
    const update = await this.parts.guard.update(name, { watch: opts.watch })
    this.publish("update", name, `update of ${name}: ${update.verdict}`)
    return { ...(await this.view(name)), update }
  }

  /**
   * An action on what runs the stack, by its orchestrator, under the stack's lock: compose acts on
   * each of its containers in the state the action acts on (by label); a swarm restarts by updating
   * each service by force and keeps its tasks running, so the others are 409 `not_supported` there.
   */
  async action(name: string, action: StackAction): Promise<StackView> {
    const { acted, view } = await this.parts.stacks.lock(name, async () => {
      const kept = this.parts.stacks.has(name)
      const orchestrator = this.parts.stacks.orchestratorOf(kept ? await this.parts.stacks.state(name) : undefined)
      const acted = await orchestrator.act(name, action)
      if (acted === undefined && !kept) throw notFound(`no stack named ${name}`)
      return { acted: acted ?? "nothing", view: await this.view(name) }
    })
    this.publish(action, name, `${past[action]} ${acted} of ${name}`)
    return view
  }

  /** The stack's containers and networks gone (its named volumes too with `volumes`), then its files. */
  async remove(name: string, opts: { volumes?: boolean } & Run = {}): Promise<void> {
    if (!(await this.parts.stacks.remove(name, opts))) return
    this.publish("remove", name, `removed ${name}${opts.volumes ? " with its named volumes" : ""}`)
  }

  /** The stack brought up as it lies here, adding no version. */
  async up(name: string, run: Run = {}): Promise<StackView> {
    await this.parts.stacks.up(name, run)
    this.publish("up", name, `brought ${name} up`)
    return this.view(name)
  }

  /** The environment replaced without deploying. */
  async setEnv(name: string, input: EnvInput): Promise<{ env_pending: boolean; env: ReturnType<typeof publicEnv> }> {
    const stack = await this.parts.stacks.setEnv(name, input)
    this.publish("set_env", name, `environment of ${name} replaced: ${plural(stack.env.length, "key")}`)
    return { env_pending: stack.state.env_pending, env: publicEnv(stack.env) }
  }

  /** One of the stack's files written without deploying; `created` for a new file. `by`: who asked (a git stack's commit names them). */
  async writeFile(
    name: string,
    path: string,
    content: string,
    by?: string,
  ): Promise<{ path: string; created: boolean; files_pending: boolean; files: string[] }> {
    await this.writeBack(name, async () => ({
      files: { [filePath(path)]: content },
      message: `Write ${path} of ${name} (PUT /api/stacks/${name}/files/${path}) ${byWhom(by)}`,
    }))
    const { stack, created } = await this.parts.stacks.writeFile(name, path, content)
    this.publish("write_file", name, `${created ? "added" : "wrote"} ${path} of ${name}`)
    return { path, created, files_pending: stack.state.files_pending ?? false, files: stack.state.files ?? [] }
  }

  /** One of the stack's files removed without deploying; `by` as for writeFile. */
  async deleteFile(
    name: string,
    path: string,
    by?: string,
  ): Promise<{ path: string; files_pending: boolean; files: string[] }> {
    await this.writeBack(name, async () => ({
      files: { [filePath(path)]: null },
      message: `Remove ${path} of ${name} (DELETE /api/stacks/${name}/files/${path}) ${byWhom(by)}`,
    }))
    const stack = await this.parts.stacks.deleteFile(name, path)
    this.publish("delete_file", name, `removed ${path} of ${name}`)
    return { path, files_pending: stack.state.files_pending ?? false, files: stack.state.files ?? [] }
  }

  /** A version deleted; the current one cannot be. */
  async deleteVersion(name: string, version: number): Promise<{ deleted: number }> {
    await this.parts.stacks.deleteVersion(name, version)
    this.publish("delete_version", name, `deleted version ${version} of ${name}`)
    return { deleted: version }
  }

  /** The plan to adopt compose project `name`, and unless `dry_run` the adoption; 409 with the plan when it is blocked. */
  async adopt(name: string, req: AdoptRequest): Promise<AdoptPlan & { dry_run: boolean; stack: StackView | null }> {
    const { plan, stack } = await adoptProject(this.parts, name, req)
    if (plan.blockers.length && !req.dry_run)
      throw conflict(`adopting ${plan.name} is blocked: ${plan.blockers.join("; ")}`, "adopt_blocked", {
        fields: { plan },
      })
    if (stack) this.publish("adopt", plan.name, `adopted the compose project ${plan.name}`)
    return { ...plan, dry_run: !stack, stack: stack ?? null }
  }

  /** The plan to adopt containers as stack `name`, and unless `dryRun` the adoption with the stack's view. */
  async adoptContainers(
    name: string,
    containers: string[],
    dryRun: boolean,
  ): Promise<ContainersPlan & ({ dry_run: true } | { dry_run: false; stack: StackView })> {
    const plan = await adoptContainers(
      { engine: this.parts.engine, stacks: this.parts.stacks, secretKeys: this.parts.config.secretKeys },
      name,
      containers,
      dryRun,
    )
    if (dryRun) return { ...plan, dry_run: true }
    this.publish(
      "adopt_containers",
      plan.name,
      `adopted ${plural(plan.services.length, "container")} as ${plan.name}: ${plan.services.map((s) => s.service).join(", ")}`,
    )
    return { ...plan, dry_run: false, stack: await this.view(plan.name) }
  }

  /** The whole stack as JSON, secrets in the clear (the event says only that it was exported). */
  async export(name: string, opts: { sizes?: boolean } = {}): Promise<StackExport> {
    const doc = await exportStack(this.parts, name, opts)
    this.publish("export", name, `exported ${name}${opts.sizes ? " with its volumes' sizes" : ""}`)
    return doc
  }

  /** A stack written from an export document, not started. */
  async import(doc: ImportBody): Promise<Awaited<ReturnType<typeof importStack>>> {
    const imported = await importStack(this.parts, doc)
    this.publish(
      "import",
      imported.name,
      `imported ${imported.name} with ${plural(imported.versions.length, "version")}`,
    )
    return imported
  }

  /**
   * An edit of a stack deployed from git: with push off, 409 `git_managed` (it would drift from the
   * repository); with push on, the change (`change()` checks it first) is committed and pushed to the
   * branch before anything here is written (409 `git_push_refused` when the branch moved) and the
   * source records the new commit; answers it. A stack without git: nothing.
   */
  private async writeBack(
    name: string,
    change: () => Promise<WriteBack>,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const records = this.parts.stacks.records(name)
    const source = this.parts.stacks.has(name) ? await readSource(records) : undefined
    if (!source) return undefined
    if (!source.push)
      throw conflict(
        `${name} is deployed from ${source.url} (${source.ref}:${source.path}) with push off: change the repository and sync, or detach git first`,
        "git_managed",
      )
    const commit = await pushChange(source, await change(), { dataDir: this.parts.stacks.dataDir, signal })
    writeSource(records, { ...((await readSource(records)) ?? source), deployed_commit: commit })
    return commit
  }

  private view(name: string): Promise<StackView> {
    return stackView(this.parts.stacks, this.parts.engine, name)
  }

  private publish(action: string, name: string, message: string): void {
    this.parts.events.publish({ type: "stack", action, name, message })
  }

  /** `change` (answering the event's message), watched through the guard when `watch` is given; then the stack's view. */
  private async changed(
    name: string,
    action: "deploy" | "apply" | "rollback",
    opts: Watch,
    change: () => Promise<string>,
  ): Promise<Changed> {
    let message = ""
    const run = async () => void (message = await change())
    if (opts.watch === undefined) {
      await run()
      this.publish(action, name, message)
      return this.view(name)
    }
    const update = await this.parts.guard.watched(
      name,
      action,
      { watch: opts.watch, orchestrator: opts.orchestrator },
      run,
    )
    this.publish(action, name, `${message}, watched: ${update.verdict}`)
    return { ...(await this.view(name)), update }
  }
}
