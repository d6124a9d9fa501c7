// Swarm stacks: the orchestrator (lib/stacks/orchestrator.ts) that runs a stack as a swarm stack
// through the docker CLI (lib/stacks/stack-cli.ts). The model checked is the one `docker stack config`
// prints, with the same host-path rules as compose's (lib/stacks/model.ts), and `build:` refused
// (`stack deploy` ignores it); the model deployed is that one (`stack deploy -c <records>/run.json
// --prune`), every `$` in it doubled so that the CLI's second interpolation gives back the values
// checked, and each secret and config from a file named after its content (the swarm changes none in
// place). Images are resolved in their registry when they changed (`--resolve-image changed`; always
// on a pull, which is how a guarded update moves a tag's digest: the pull is the deploy), and the
// credentials of their registries go with the services (`--with-registry-auth`: every node pulls
// with them). A deploy
// waits until the stack's services converge: every task the swarm keeps running is running at the
// service's new container spec; a task of theirs that failed or was rejected since the deploy began,
// or an update the swarm paused or rolled back, is upstream `stack_failed` with the tasks' errors
// (what the guarded change takes as a watch that failed early). `down` is `stack rm` (again while a
// network is left), then a wait until the stack's services and networks are gone (and with
// `volumes`, its named volumes on the manager removed: those on other nodes stay there).
//
// What runs is the stack's services, found by the label the CLI puts on them: their replicas and
// tasks on every node (the view), a restart that replaces every task (the swarm keeps tasks running,
// so start, stop, pause and unpause have no meaning), their log, and the health watch: for a window,
// every task of theirs must keep running; one that fails or is rejected, or one made anew (the swarm
// replaced a task that stopped), or a service with fewer running tasks than it wants at the end,
// fails it at once. A guarded change pins each service's image as its spec names it
// (`repo:tag@sha256:...`); an update is brought back by the swarm's own rollback of each service it
// changed, any other change by the store deploying the pinned version again.
import type { ComposeProject } from "./compose.ts"
import { redact } from "./env.ts"
import type { StackFiles } from "./files.ts"
import { readIfFile, within } from "./host-paths.ts"
import { mergeBatches } from "./logs.ts"
import { candidateModel, readCompose } from "./model.ts"
import {
  CAPABILITIES,
  errorMessage,
  tailOf,
  type ImageChange,
  type Kept,
  type Orchestrator,
  type ServiceView,
  type StackView,
} from "./orchestrator.ts"
import type { StackCli } from "./stack-cli.ts"
import { keptState } from "./view.ts"
import type { WatchResult } from "./watch.ts"
import type { Engine } from "../engine/client.ts"
import type { LogLineRecord, LogQuery } from "../engine/logs.ts"
import type { SwarmNode, SwarmService as EngineService, SwarmTask as EngineTask } from "../engine/swarm.ts"
import { canceled, conflict, invalid, isDomainError, timedOut, upstream } from "../errors/errors.ts"
import { setTimeout as sleep } from "node:timers/promises"

/** The label the docker CLI puts on a swarm stack's services, networks, secrets, configs and volumes. */
export const SWARM_STACK_LABEL = "com.docker.stack.namespace"

/** What the swarm orchestrator reads of a service (the Engine API's). */
export interface SwarmService {
  ID: string
  Spec: {
    Name: string
    Labels?: Record<string, string>
    Mode?: { Replicated?: { Replicas?: number }; Global?: object; ReplicatedJob?: object; GlobalJob?: object }
    TaskTemplate?: { ContainerSpec?: unknown; ForceUpdate?: number }
  }
  UpdateStatus?: { State?: string; StartedAt?: string; Message?: string }
}

/** What it reads of a task. */
export interface SwarmTask {
  ID: string
  ServiceID: string
  NodeID?: string
  Slot?: number
  CreatedAt: string
  DesiredState: string
  Spec?: { ContainerSpec?: unknown; ForceUpdate?: number }
  Status: { State: string; Err?: string; Message?: string }
}

/** The swarm as the orchestrator reads it: a stack's services, their tasks, what else of it is left, and its volumes on the manager. */
export interface SwarmReader {
  services(stack: string): Promise<SwarmService[]>
  /** The tasks of these services. */
  tasks(services: string[]): Promise<SwarmTask[]>
  /** Names of the stack's networks still there. */
  networks(stack: string): Promise<string[]>
  /** Removes the stack's named volumes on the manager; answers those still in use. */
  removeVolumes(stack: string): Promise<string[]>
}

/** The engine's calls the swarm orchestrator makes besides the CLI's. */
export type SwarmEngine = Pick<
  Engine,
  | "listServices"
  | "listTasks"
  | "listNodes"
  | "listNetworks"
  | "listVolumes"
  | "removeVolume"
  | "inspectService"
  | "updateService"
  | "serviceLogs"
>

export interface SwarmOptions {
  cli: StackCli
  engine: SwarmEngine
  /** The swarm as `up` and `down` read it; the engine's unless given. */
  swarm?: SwarmReader
  /** Seconds a deploy may take to converge, or a removal to be gone (SVC_COMPOSE_TIMEOUT). */
  timeout: number
  /** Milliseconds between two looks at the swarm. */
  pollMs?: number
  now?: () => number
}

/** The swarm read through the engine's calls: the stack's objects by the label the CLI puts on them. */
export function engineSwarm(
  engine: Pick<Engine, "listServices" | "listTasks" | "listNetworks" | "listVolumes" | "removeVolume">,
): SwarmReader {
  const label = (stack: string) => ({ label: [`${SWARM_STACK_LABEL}=${stack}`] })
  return {
    services: async (stack) => engine.listServices(label(stack)),
    tasks: async (services) => (services.length ? engine.listTasks({ service: services }) : []),
    networks: async (stack) =>
      (await engine.listNetworks()).filter((n) => n.Labels?.[SWARM_STACK_LABEL] === stack).map((n) => n.Name),
    async removeVolumes(stack) {
      const left: string[] = []
      for (const v of await engine.listVolumes(label(stack)))
        await engine.removeVolume(v.Name).catch(() => left.push(v.Name))
      return left
    },
  }
}

/** Milliseconds after which `stack rm` is run again while something of the stack is left. */
const RM_AGAIN_MS = 3000

/** Task states past which a task will not run. */
const FAILED = new Set(["failed", "rejected"])
/** Update states that say the swarm gave up on the new spec. */
const GAVE_UP = new Set(["paused", "rollback_started", "rollback_paused", "rollback_completed"])
/** The same while a rollback is what was asked for. */
const ROLLBACK_GAVE_UP = new Set(["rollback_paused"])

/** A spec without its empty members (null, {}, []): the swarm leaves some out of a task's copy of its service's spec (`DNSConfig: {}`). */
function normal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normal)
  if (!v || typeof v !== "object") return v
  const kept = Object.entries(v)
    .map(([k, x]) => [k, normal(x)] as const)
    .filter(
      ([, x]) => x !== null && x !== undefined && !(typeof x === "object" && Object.keys(x as object).length === 0),
    )
  return Object.fromEntries(kept.sort(([a], [b]) => a.localeCompare(b)))
}
const same = (a: unknown, b: unknown) => JSON.stringify(normal(a) ?? null) === JSON.stringify(normal(b) ?? null)

/**
 * Where a stack's deploy stands: `done` when every service has its replicas (one per task a global
 * service keeps) running at its current container spec; `failed` with the errors when a task at that
 * spec made since `since` (ms) failed or was rejected (one of the spec being replaced may), or the swarm paused or rolled back a service's update
 * begun since (with `rollback`, the rollback asked for is the change: only a paused one fails).
 */
export function convergence(
  services: SwarmService[],
  tasks: SwarmTask[],
  since: number,
  { rollback = false } = {},
): { done: boolean; failed: string[] } {
  const gaveUp = rollback ? ROLLBACK_GAVE_UP : GAVE_UP
  const failed: string[] = []
  let done = true
  for (const s of services) {
    const stack = s.Spec.Labels?.[SWARM_STACK_LABEL]
    const name = stack && s.Spec.Name.startsWith(`${stack}_`) ? s.Spec.Name.slice(stack.length + 1) : s.Spec.Name
    const mine = tasks.filter((t) => t.ServiceID === s.ID)
    for (const t of mine)
      if (
        FAILED.has(t.Status.State) &&
        Date.parse(t.CreatedAt) >= since &&
        same(t.Spec?.ContainerSpec, s.Spec.TaskTemplate?.ContainerSpec)
      )
        failed.push(
          `service ${name}: task ${t.ID.slice(0, 12)}${t.NodeID ? ` on node ${t.NodeID.slice(0, 12)}` : ""} ${t.Status.State}: ${t.Status.Err || t.Status.Message || "no message"}`,
        )
    // An update that began before this change (one the swarm paused earlier) says nothing of it.
    const started = s.UpdateStatus?.StartedAt
    const update = !started || Date.parse(started) >= since ? s.UpdateStatus?.State : undefined
    if (update && gaveUp.has(update))
      failed.push(`service ${name}: update ${update}: ${s.UpdateStatus?.Message ?? ""}`.trim())
    if (update === "updating" || (rollback && update === "rollback_started")) done = false
    const mode = s.Spec.Mode ?? {}
    if (mode.ReplicatedJob || mode.GlobalJob) continue
    const kept = mine.filter((t) => t.DesiredState === "running")
    const current = kept.filter(
      (t) =>
        t.Status.State === "running" &&
        same(t.Spec?.ContainerSpec, s.Spec.TaskTemplate?.ContainerSpec) &&
        (t.Spec?.ForceUpdate ?? 0) === (s.Spec.TaskTemplate?.ForceUpdate ?? 0),
    )
    const wanted = mode.Global ? Math.max(kept.length, 1) : (mode.Replicated?.Replicas ?? 1)
    if (current.length !== wanted || kept.length !== wanted) done = false
  }
  return { done: done && !failed.length, failed }
}

/**
 * Each secret and config read from a file, and named by no `name:`, named after its content
 * (`<stack>_<key>_<digest>`): the swarm refuses to change one in place, so a new content is a new
 * secret, and `stack rm` removes them all (they carry the stack's label). The content is the stack's
 * file as the deploy writes it, else what lies at the path.
 */
export function nameByContent(
  model: Record<string, any>,
  project: ComposeProject,
  files: StackFiles,
): Record<string, any> {
  for (const section of ["secrets", "configs"]) {
    for (const [key, entry] of Object.entries<Record<string, any>>(model[section] ?? {})) {
      if (typeof entry?.file !== "string" || entry.name !== undefined) continue
      const rel = within(entry.file, project.dir) ? entry.file.slice(project.dir.length + 1) : undefined
      const content = (rel !== undefined && Object.hasOwn(files, rel) ? files[rel] : readIfFile(entry.file)) ?? ""
      entry.name = `${project.name}_${key}_${new Bun.CryptoHasher("sha256").update(content).digest("hex").slice(0, 12)}`
    }
  }
  return model
}

/** Every `$` of every string value doubled: the docker CLI interpolates the file it deploys, and `$$` gives back `$`. */
export function escapeDollars(v: unknown): unknown {
  if (typeof v === "string") return v.replaceAll("$", "$$$$")
  if (Array.isArray(v)) return v.map(escapeDollars)
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, escapeDollars(x)]))
  return v
}

const buildRefused = (service: string) =>
  invalid(
    `service ${service}: \`build:\` is not supported on a swarm (docker stack deploy ignores it): build and push the image, and name it in \`image:\``,
    "build_not_supported",
  )

export interface Polling {
  /** Seconds before it is given up (504). */
  timeout: number
  pollMs?: number
  now?: () => number
  /** Stops it early (503). */
  signal?: AbortSignal
}

/** Polls `look` until it answers true, the deadline passes (504 `compose_timeout`) or the signal fires (503 `compose_aborted`). */
async function until(
  what: string,
  look: () => Promise<boolean>,
  { timeout, pollMs = 250, now = Date.now, signal }: Polling,
): Promise<void> {
  const deadline = now() + timeout * 1000
  while (!(await look())) {
    if (signal?.aborted) throw canceled(`${what} was stopped: its caller gave up`, "compose_aborted")
    if (now() > deadline) throw timedOut(`${what} did not happen within ${timeout} s`, "compose_timeout")
    await sleep(pollMs, undefined, { signal }).catch(() => {})
  }
}

/** Waits until a stack's services converge (see `convergence`); 502 `stack_failed` with the tasks' errors when they will not. `since`: when the change began (ms). */
export async function converged(
  swarm: Pick<SwarmReader, "services" | "tasks">,
  stack: string,
  since: number,
  polling: Polling & { rollback?: boolean },
): Promise<void> {
  let errors: string[] = []
  await until(
    `the services of stack ${stack} converging`,
    async () => {
      const services = await swarm.services(stack)
      const c = convergence(services, await swarm.tasks(services.map((s) => s.ID)), since, polling)
      errors = c.failed
      return c.done || c.failed.length > 0
    },
    polling,
  )
  if (errors.length)
    throw upstream(`stack ${stack} did not converge: ${errors.slice(0, 10).join("; ")}`, "stack_failed")
}

export function swarmOrchestrator({
  cli,
  engine,
  swarm = engineSwarm(engine),
  timeout,
  pollMs = 250,
  now = Date.now,
}: SwarmOptions): Orchestrator {
  const must = async (project: ComposeProject, args: string[], action: string, signal?: AbortSignal) => {
    const { code, output } = await cli.run(project, args, action, { signal })
    if (code !== 0) throw upstream(`docker stack ${args[0]} failed: ${tailOf(output)}`, "stack_failed")
  }
  const up: Orchestrator["up"] = async (project, { pull, action = "up", signal } = {}) => {
    const since = now() - 1000
    await must(
      project,
      [
        "deploy",
        "-c",
        project.file!,
        "--prune",
        "--resolve-image",
        pull ? "always" : "changed",
        "--with-registry-auth",
        project.name,
      ],
      action,
      signal,
    )
    await converged(swarm, project.name, since, { timeout, pollMs, now, signal })
  }
  return {
    name: "swarm",
    async check(input) {
      // The CLI leaves a build context relative, which the host-path check refuses: the file's own `build:` is named first.
      const built = Object.entries((await readCompose(input.compose)).services ?? {}).find(
        ([, s]) => s && typeof s === "object" && "build" in s,
      )
      if (built) throw buildRefused(built[0])
      const checked = await candidateModel(cli, input)
      if (checked.model.built.length) throw buildRefused(checked.model.built[0]!)
      const model = nameByContent(JSON.parse(checked.run), input.project, input.files ?? {})
      return { ...checked, run: JSON.stringify(escapeDollars(model), null, 2) }
    },
    up,
    async down(project, { volumes, action = "down", signal } = {}) {
      const rm = () => cli.run(project, ["rm", project.name], action, { signal })
      const first = await rm()
      if (first.code !== 0 && (await swarm.services(project.name)).length)
        throw upstream(`docker stack rm failed: ${tailOf(first.output)}`, "stack_failed")
      const polling = { timeout, pollMs, now, signal }
      // `stack rm` leaves a network a task's container still holds (it goes a moment after its
      // service): it is asked again, every few seconds, until nothing of the stack is left.
      let asked = now()
      await until(
        `the services and networks of stack ${project.name} going`,
        async () => {
          const left = (await swarm.services(project.name)).length + (await swarm.networks(project.name)).length
          if (left && now() - asked > RM_AGAIN_MS) {
            await rm()
            asked = now()
          }
          return !left
        },
        polling,
      )
      // A task's container goes a moment after its service: its volumes are free once it has.
      if (volumes)
        await until(
          `the named volumes of stack ${project.name} going`,
          async () => !(await swarm.removeVolumes(project.name)).length,
          polling,
        )
    },
    async volumes(name) {
      return (await engine.listVolumes({ label: [`${SWARM_STACK_LABEL}=${name}`] })).map((v) => v.Name)
    },
    async pull(project, { signal } = {}) {
      await up(project, { pull: true, signal })
      return "up"
    },
    async views(kept) {
      if (!kept.length) return []
      const services = await engine.listServices({ label: [SWARM_STACK_LABEL] })
      const ids = services.filter((s) => kept.some((k) => stackOf(s) === k.name)).map((s) => s.ID)
      const [tasks, nodes] = ids.length
        ? await Promise.all([engine.listTasks({ service: ids }), engine.listNodes()])
        : [[], []]
      return kept.map((k) =>
        servicesView(
          k,
          services.filter((s) => stackOf(s) === k.name),
          tasks,
          nodes,
        ),
      )
    },
    health(view) {
      const shown = view.services.filter((s) => s.replicas)
      if (view.services.length > shown.length)
        return { health: "stopped", reason: "its services cannot be read on this engine (it is no swarm manager)" }
      const running = shown.reduce((n, s) => n + s.replicas!.running, 0)
      if (!shown.length || running === 0)
        return { health: "stopped", reason: shown.length ? "no replica running" : "no services" }
      const below = shown.filter((s) => s.replicas!.running < s.replicas!.desired)
      return below.length
        ? {
            health: "degraded",
            reason: below.map((s) => `${s.name}: ${s.replicas!.running} of ${s.replicas!.desired} replicas`).join("; "),
          }
        : { health: "running", reason: null }
    },
    async act(name, action) {
      if (!CAPABILITIES.swarm.actions.includes(action))
        throw conflict(
          `${action} is not supported for a swarm stack: the swarm keeps its tasks running (restart replaces them; remove stops them)`,
          "not_supported",
        )
      const restarted = await restartServices(engine, name)
      return `${restarted} service${restarted === 1 ? "" : "s"}`
    },
    stopped: async () => false,
    logs: (view, q) => serviceLogs(engine, view.name, q),
    async pin(name, recorded) {
      const images = await serviceImages(engine, name)
      return {
        stack: name,
        ...recorded,
        images: [...images].map(([service, image]) => ({ service, ref: image.split("@")[0]!, image, running: true })),
      }
    },
    async changes(pin) {
      const before = new Map(pin.images.map((i) => [i.service, i.image]))
      const images = imageChanges(before, await serviceImages(engine, pin.stack).catch(() => new Map()))
      return { images, moved: images.some((i) => i.to) }
    },
    failedToRun: (err) => isDomainError(err) && err.code === "stack_failed",
    watch: (name, _pin, run) => watchSwarmStack(engine, name, run),
    async rollBack(pin, way) {
      try {
        if (!way.update) await way.redeploy()
        else {
          const since = now()
          await rollbackServices(engine, pin.stack, { timeout: 30, pollMs, now })
          await converged(swarm, pin.stack, since, {
            timeout: Math.max(way.window, 60) * 2,
            pollMs,
            now,
            rollback: true,
          })
        }
      } catch (err) {
        return [
          `bringing the previous state back failed (${errorMessage(err)}): look at the stack's services and tasks and deploy by hand`,
        ]
      }
      return []
    },
    release: async () => {},
  }
}

/** The stack a service belongs to, by the CLI's label. */
const stackOf = (s: { Spec: { Labels?: Record<string, string> } }) => s.Spec.Labels?.[SWARM_STACK_LABEL]

/** A service's name within its stack (`web` of `shop_web`). */
const shortName = (stack: string, s: { Spec: { Name: string } }) =>
  s.Spec.Name.startsWith(`${stack}_`) ? s.Spec.Name.slice(stack.length + 1) : s.Spec.Name

/** The stack's services by the CLI's label. */
const stackServices = (engine: Pick<Engine, "listServices">, stack: string) =>
  engine.listServices({ label: [`${SWARM_STACK_LABEL}=${stack}`] })

/** A swarm stack's view: its services, their replicas, and the tasks the swarm keeps running, on their nodes by hostname. */
function servicesView(kept: Kept, services: EngineService[], tasks: EngineTask[], nodes: SwarmNode[]): StackView {
  const hostname = new Map(nodes.map((n) => [n.ID, n.Description?.Hostname]))
  const shown: ServiceView[] = services.map((s) => {
    const mine = tasks.filter(
      (t) => t.ServiceID === s.ID && (t.DesiredState === "running" || t.DesiredState === "ready"),
    )
    return {
      name: shortName(kept.name, s),
      containers: [],
      replicas: {
        desired: s.ServiceStatus?.DesiredTasks ?? mine.length,
        running: s.ServiceStatus?.RunningTasks ?? mine.filter((t) => t.Status.State === "running").length,
      },
      tasks: mine.map((t) => ({
        id: t.ID,
        node: (t.NodeID && hostname.get(t.NodeID)) || t.NodeID || "",
        state: t.Status.State,
        desired_state: t.DesiredState,
        ...(t.Status.Err ? { error: t.Status.Err } : {}),
      })),
    }
  })
  const names = [...new Set([...kept.services, ...shown.map((s) => s.name)])].sort()
  const replicas = (s: ServiceView) => s.replicas!
  const running = shown.reduce((n, s) => n + replicas(s).running, 0)
  const desired = shown.reduce((n, s) => n + replicas(s).desired, 0)
  return {
    name: kept.name,
    managed: true,
    orchestrator: "swarm",
    capabilities: CAPABILITIES.swarm,
    status:
      running === 0
        ? "stopped"
        : running >= desired && shown.every((s) => replicas(s).running >= replicas(s).desired)
          ? "running"
          : "partly running",
    services: names.map(
      (n) =>
        shown.find((s) => s.name === n) ?? { name: n, containers: [], replicas: { desired: 0, running: 0 }, tasks: [] },
    ),
    ...keptState(kept),
  }
}

/** A swarm stack's log: each of its services' lines (the swarm's, from every node), `tail` per service, the task as `container`. */
async function serviceLogs(
  engine: Pick<Engine, "listServices" | "serviceLogs">,
  stack: string,
  q: LogQuery,
): Promise<AsyncIterable<LogLineRecord[]>> {
  const services = await stackServices(engine, stack)
  return mergeBatches(
    services.map((s) =>
      (async function* () {
        const service = shortName(stack, s)
        for await (const l of engine.serviceLogs(s.ID, q))
          yield { service, container: l.task, stream: l.stream, ts: l.ts, line: l.line }
      })(),
    ),
  )
}

/** Watches a swarm stack's tasks until one fails or the window ends. */
export async function watchSwarmStack(
  engine: Pick<Engine, "listServices" | "listTasks">,
  stack: string,
  o: { window: number; pollMs?: number; secrets?: string[]; now?: () => number },
): Promise<WatchResult> {
  const now = o.now ?? Date.now
  const start = now()
  const end = start + o.window * 1000
  const say = (s: string) => redact(s, o.secrets ?? [])
  for (;;) {
    const services = await stackServices(engine, stack)
    const tasks = services.length ? await engine.listTasks({ service: services.map((s) => s.ID) }) : []
    const elapsed_ms = now() - start
    const fail = (service: string, reason: string): WatchResult => ({
      ok: false,
      service,
      reason: say(`service ${service}: ${reason}`),
      elapsed_ms,
      containers: [],
    })
    for (const s of services) {
      const mine = tasks.filter((t) => t.ServiceID === s.ID)
      const bad = mine.find(
        (t) =>
          (t.Status.State === "failed" || t.Status.State === "rejected") &&
          Date.parse(t.UpdatedAt ?? t.CreatedAt) >= start,
      )
      if (bad)
        return fail(
          shortName(stack, s),
          `task ${bad.ID.slice(0, 12)} ${bad.Status.State}: ${bad.Status.Err || bad.Status.Message || "no message"}`,
        )
      const again = mine.find((t) => Date.parse(t.CreatedAt) > start)
      if (again)
        return fail(
          shortName(stack, s),
          `task ${again.ID.slice(0, 12)} was made anew in slot ${again.Slot ?? "?"} during the watch (a task stopped)`,
        )
    }
    if (now() >= end) {
      if (!services.length)
        return { ok: false, service: "", reason: "no service of the stack is there", elapsed_ms, containers: [] }
      for (const s of services) {
        const running = tasks.filter(
          (t) => t.ServiceID === s.ID && t.DesiredState === "running" && t.Status.State === "running",
        ).length
        const wanted = s.ServiceStatus?.DesiredTasks ?? running
        if (running < wanted)
          return fail(shortName(stack, s), `${running} of ${wanted} tasks running after ${o.window} s`)
      }
      return { ok: true, early: false, elapsed_ms, containers: [] }
    }
    await Bun.sleep(Math.min(o.pollMs ?? 250, Math.max(0, end - now())))
  }
}

/** Each service's image as its spec names it. */
async function serviceImages(engine: Pick<Engine, "listServices">, stack: string): Promise<Map<string, string>> {
  return new Map(
    (await stackServices(engine, stack)).map((s) => [
      shortName(stack, s),
      s.Spec.TaskTemplate.ContainerSpec?.Image ?? "",
    ]),
  )
}

/** What moved between two readings of the services' images (`ref` without its digest). */
function imageChanges(before: Map<string, string>, after: Map<string, string>): ImageChange[] {
  return [...before].map(([service, from]) => {
    const now = after.get(service)
    const to = now && now !== from ? now : null
    return { service, ref: from.split("@")[0]!, from, from_id: from, to, to_id: to }
  })
}

/** Each of a swarm stack's services updated by force: the swarm replaces every task (a restart); answers how many services. */
export async function restartServices(
  engine: Pick<Engine, "listServices" | "inspectService" | "updateService">,
  stack: string,
): Promise<number> {
  const services = await engine.listServices({ label: [`${SWARM_STACK_LABEL}=${stack}`] })
  for (const s of services) {
    const current = await engine.inspectService(s.ID)
    const template = current.Spec.TaskTemplate
    await engine.updateService(s.ID, current.Version.Index, {
      ...current.Spec,
      TaskTemplate: { ...template, ForceUpdate: (template.ForceUpdate ?? 0) + 1 },
    })
  }
  return services.length
}

/**
 * Each of a swarm stack's services whose spec differs from its previous one rolled back by the swarm
 * (`service rollback`); answers their names. An update still under way is let settle first (the
 * swarm pauses it at its failed task; a rollback begun before would take that failure as its own
 * and pause too), for up to `polling.timeout` seconds.
 */
export async function rollbackServices(
  engine: Pick<Engine, "listServices" | "updateService">,
  stack: string,
  polling: Polling,
): Promise<string[]> {
  const services = () => engine.listServices({ label: [`${SWARM_STACK_LABEL}=${stack}`] })
  await until(
    `the update of stack ${stack} settling`,
    async () => (await services()).every((s) => s.UpdateStatus?.State !== "updating"),
    polling,
  ).catch(() => {})
  const rolled: string[] = []
  for (const s of await services()) {
    if (!s.PreviousSpec || same(s.PreviousSpec, s.Spec)) continue
    await engine.updateService(s.ID, s.Version.Index, s.Spec, { rollback: "previous" })
    rolled.push(s.Spec.Name)
  }
  return rolled
}
