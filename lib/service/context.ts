// The one object every handler gets: built once at start, or by a test with a fake engine. What the
// start path needs (the configuration, the engine client, this server's identity, the jobs, sign-in
// and the metrics) is made at once; every other part is made by its first read, and its room's
// modules are loaded (require) only then: a service that never deploys never loads the stack store.
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { Config } from "./config.ts"
import { dockerEngine, type Engine, type EngineVersion } from "../engine/client.ts"
import { EventBus } from "../engine/events.ts"
import type { DiskUsageCache } from "../engine/disk-usage.ts"
import type { Reused } from "../engine/reused.ts"
import { engineHealth, type EngineHealth } from "../engine/health.ts"
import { serverId as identity } from "../data/identity.ts"
import { makeDirs } from "../data/datadir.ts"
import type { ComposeRunner } from "../stacks/compose.ts"
import { isStackName, stackDirs } from "../stacks/name.ts"
import type { Stacks } from "../stacks/store.ts"
import type { LiveMounts } from "../stacks/live-mounts.ts"
import type { Cluster } from "../cluster/membership.ts"
import type { NodeRegistry } from "../cluster/nodes.ts"
import { createMetrics } from "../metrics/metrics.ts"
import type { Metrics } from "../metrics/types.ts"
import type { ScanQueue } from "../images/scan-queue.ts"
import type { Scanner } from "../images/scanner.ts"
import type { ImageUpdates } from "../images/update-checks.ts"
import type { Registries } from "../registries/registries.ts"
import type { UpdateGuard } from "../updates/guard.ts"
import type { Notifier } from "../updates/notify.ts"
import type { UpdateRecords } from "../updates/records.ts"
import type { PolicyScheduler } from "../updates/scheduler.ts"
import type { Speaker } from "../tts/speaker.ts"
import type { StatsSampler } from "../stats/sampler.ts"
import type { StackVerbs } from "../verbs/stack-verbs.ts"
import type { GitVerbs } from "../verbs/git-verbs.ts"
import type { BackupVerbs } from "../verbs/backup-verbs.ts"
import type { Alerts } from "../alerts/alerts.ts"
import type { FileTrees } from "../files/trees.ts"
import type { Catalog } from "../catalog/catalog.ts"
import { Jobs } from "./jobs.ts"
import { Auth } from "../auth/auth.ts"
import type { Oidc } from "../auth/oidc.ts"

export interface Ctx {
  config: Config
  engine: Engine
  events: EventBus
  serverId: string
  /** Wall clock in milliseconds; tests may pin it. */
  now: () => number
  /** The compose CLI (a fake in handler tests). */
  compose: ComposeRunner
  /** The stack store under <dataDir>/stacks. */
  stacks: Stacks
  /** Every operation on a stack: the store's, watched through the guard when asked, with its event (lib/verbs/stack-verbs.ts). */
  verbs: StackVerbs
  /** Git stacks: source, status, sync, webhook (lib/verbs/git-verbs.ts). */
  git: GitVerbs
  /** Stack backups in restic repositories: the repositories, backup, restore (lib/verbs/backup-verbs.ts). */
  backups: BackupVerbs
  /** The binds of started containers, checked against what their stack may reach (watched by server.ts, asked by the store after `up`). */
  liveMounts: LiveMounts
  /** This server's cluster role and token (cluster.json). */
  cluster: Cluster
  /** The node registry of a control plane (nodes.json). */
  nodes: NodeRegistry
  /** The vulnerability scanner (Trivy or Grype, binary or container). */
  scanner: Scanner
  /** The scan queue and the stored results (<dataDir>/scans). */
  scans: ScanQueue
  /** The private registries this server keeps credentials for, used by every pull, compose run and registry request (lib/registries). */
  registries: Registries
  /** Registry update checks of images and their records (updates.json); not the guarded updates (`guard`). */
  imageUpdates: ImageUpdates
  /** Guarded updates: pin, watch, rollback, verdicts (lib/updates/guard.ts). */
  guard: UpdateGuard
  /** Each stack's update history and policy (lib/updates/records.ts). */
  updateRecords: UpdateRecords
  /** Notifications to SVC_NOTIFY_URLS (lib/updates/notify.ts). */
  notifier: Notifier
  /** Alert channels, rules, delivery and history (lib/alerts). */
  alerts: Alerts
  /** Template sources, the shipped catalog, installs and template updates, saved templates, logos (lib/catalog). */
  catalog: Catalog
  /** Runs the stacks' update policies (started by server.ts). */
  policies: PolicyScheduler
  /** The Prometheus registry; request and probe durations are observed into it. */
  metrics: Metrics
  /** The engine's disk usage, one count at a time and reused for 30 s (dashboard). */
  diskUsage: DiskUsageCache
  /** The engine's version, reused for 30 s: asking for it costs the engine more than listing 200 containers (dashboard). */
  engineVersion: Reused<EngineVersion>
  /** The engine as /api/health reports it: one round trip shared by the callers at the same moment, the first begun at launch. */
  engineHealth: Reused<EngineHealth>
  /** Text-to-speech: the speech back end SVC_TTS_ENGINE names behind a concurrency bound (a fake in tests). */
  tts: Speaker
  /** Container stats: the one sampler of the engine and its history (started by server.ts). */
  stats: StatsSampler
  /** The background jobs and their states (the list is lib/service/background.ts, started by server.ts). */
  jobs: Jobs<Ctx>
  /** Sign-in, sessions, API tokens, roles and the audit log (lib/auth); open to all while SVC_AUTH is off. */
  auth: Auth
  /** Single sign-on with the OIDC provider (lib/auth/oidc.ts); null without `oidc` in SVC_AUTH. */
  oidc: Oidc | null
  /** A volume's or a container's files, browsed and changed (lib/files). */
  files: FileTrees
}

/** Whether `ctx[key]` was made (or given): what was never made needs no stopping. */
export const made = (ctx: Ctx, key: keyof Ctx): boolean => !Object.getOwnPropertyDescriptor(ctx, key)?.get

/**
 * Makes `ctx[key]` on its first read and keeps it; assigning it (a test's own part) replaces it.
 * `make` loads its room with require, so the room is evaluated only then.
 */
function lazily<K extends keyof Ctx>(ctx: Ctx, key: K, make: () => Ctx[K]): void {
  const keep = (value: Ctx[K]) =>
    Object.defineProperty(ctx, key, { value, writable: true, enumerable: true, configurable: true })
  Object.defineProperty(ctx, key, {
    get: () => keep(make())[key],
    set: keep,
    enumerable: true,
    configurable: true,
  })
}

/**
 * Each part from `overrides` when given, else built from the config: the start path's parts at once,
 * the others by their first read; every part built once.
 */
export async function createContext(config: Config, overrides: Partial<Omit<Ctx, "config">> = {}): Promise<Ctx> {
  const o = overrides
  const now = o.now ?? Date.now
  // The parts made later count their schedules from here (git's on the wall clock, as its schedules are).
  const started = now()
  const startedWall = Date.now()
  // Every pull and push through the engine carries the credentials of the reference's kept registry.
  const engine =
    o.engine ?? dockerEngine(config.dockerHost, config.dockerApiVersion, (ref) => ctx.registries.engineAuth(ref))
  // The clear root (lib/engine/clear-room.ts) is part of the data directory's layout from the start.
  makeDirs(join(config.dataDir, "clear"), 0o700)
  const ctx = {
    config,
    engine,
    now,
    serverId: o.serverId ?? (await identity(config.dataDir)),
    engineHealth: o.engineHealth ?? engineHealth(engine),
    jobs: o.jobs ?? new Jobs(),
    metrics: o.metrics ?? (await createMetrics(config.metrics)),
    auth: o.auth ?? new Auth({ config: config.auth, dataDir: config.dataDir, now }),
    // Engine events about a stack's objects hide its secrets (the store is read only for such an event).
    events:
      o.events ??
      new EventBus((project) =>
        (require("../stacks/env.ts") as typeof import("../stacks/env.ts")).redactorFor(ctx.stacks)(project),
      ),
  } as Ctx
  const part = <K extends Exclude<keyof Ctx, "config">>(key: K, make: () => Ctx[K]) =>
    lazily(ctx, key, () => (o[key] as Ctx[K] | undefined) ?? make())
  const timeouts = config.composeTimeouts
  // Each compose and `docker stack` call gets a DOCKER_CONFIG of its own with the credentials its images need.
  const credentials = (images: string[]) => ctx.registries.runConfig(images)
  // Where compose and the docker CLI read a stack's secrets in the clear while they run (lib/engine/clear-room.ts).
  let rooms: import("../engine/clear-room.ts").ClearRooms | undefined
  const clearRooms = () =>
    (rooms ??= new (require("../engine/clear-room.ts") as typeof import("../engine/clear-room.ts")).ClearRooms(
      join(config.dataDir, "clear"),
    ))

  part("registries", () => {
    const { Registries } = require("../registries/registries.ts") as typeof import("../registries/registries.ts")
    return new Registries(config.dataDir, {
      insecure: config.insecureRegistries,
      dockerConfig: config.toolEnv.DOCKER_CONFIG || join(config.toolEnv.HOME ?? "/root", ".docker"),
      now,
    })
  })
  part("compose", () =>
    (require("../stacks/compose.ts") as typeof import("../stacks/compose.ts")).composeRunner({
      host: engine.host,
      toolEnv: config.toolEnv,
      events: ctx.events,
      rooms: clearRooms(),
      timeouts,
      credentials,
    }),
  )
  part("scanner", () =>
    (require("../images/scanner.ts") as typeof import("../images/scanner.ts")).createScanner({
      choice: config.scanner,
      timeout: config.scanTimeout,
      engine,
      env: config.scannerEnv,
    }),
  )
  // A stack is watched from its first deploy's `up` on: its records are written before (looked for without loading the store).
  part("liveMounts", () => {
    const { LiveMounts } = require("../stacks/live-mounts.ts") as typeof import("../stacks/live-mounts.ts")
    return new LiveMounts({
      engine,
      events: ctx.events,
      managed: (name) => isStackName(name) && existsSync(join(stackDirs(config.dataDir).records, name)),
      allowedFor: (name) => ctx.stacks.allows(name),
      secrets: (name) => ctx.stacks.secrets(name),
    })
  })
  part("stacks", () => {
    const { Stacks } = require("../stacks/store.ts") as typeof import("../stacks/store.ts")
    const { stackCli } = require("../stacks/stack-cli.ts") as typeof import("../stacks/stack-cli.ts")
    const { swarmOrchestrator } = require("../stacks/swarm.ts") as typeof import("../stacks/swarm.ts")
    // Swarm stacks run through the docker CLI's `docker stack` on the same engine, a swarm manager.
    const swarm = swarmOrchestrator({
      cli: stackCli({
        host: engine.host,
        toolEnv: config.toolEnv,
        events: ctx.events,
        cli: config.dockerCli,
        rooms: clearRooms(),
        timeouts,
        credentials,
        resolve: (images) => ctx.registries.resolvable(engine, images),
      }),
      engine,
      timeout: timeouts.run,
    })
    return new Stacks(config.dataDir, ctx.compose, {
      now,
      hostRoots: config.bindRoots,
      engine,
      swarm,
      liveMounts: (project, allowed) => ctx.liveMounts.check(project, allowed),
    })
  })
  part(
    "imageUpdates",
    () =>
      new (require("../images/update-checks.ts") as typeof import("../images/update-checks.ts")).ImageUpdates(
        config.dataDir,
        engine,
        (ref) => ctx.registries.digest(ref),
        now,
      ),
  )
  part(
    "notifier",
    () =>
      new (require("../updates/notify.ts") as typeof import("../updates/notify.ts")).Notifier(config.notifyUrls, {
        serverId: ctx.serverId,
        events: ctx.events,
        now,
      }),
  )
  part(
    "alerts",
    () =>
      new (require("../alerts/alerts.ts") as typeof import("../alerts/alerts.ts")).Alerts({
        dataDir: config.dataDir,
        server: ctx.serverId,
        events: ctx.events,
        now,
        pollSeconds: config.alerts.pollSeconds,
        apiBases: config.alerts.apiBases,
      }),
  )
  part(
    "catalog",
    () =>
      new (require("../catalog/catalog.ts") as typeof import("../catalog/catalog.ts")).Catalog({
        dataDir: config.dataDir,
        stacks: ctx.stacks,
        verbs: ctx.verbs,
        backups: ctx.backups,
        updateRecords: ctx.updateRecords,
        events: ctx.events,
        secretKeys: config.secretKeys,
        updateWatch: config.updateWatch,
        now,
      }),
  )
  part(
    "updateRecords",
    () =>
      new (require("../updates/records.ts") as typeof import("../updates/records.ts")).UpdateRecords(ctx.stacks, now),
  )
  part(
    "guard",
    () =>
      new (require("../updates/guard.ts") as typeof import("../updates/guard.ts")).UpdateGuard({
        stacks: ctx.stacks,
        events: ctx.events,
        records: ctx.updateRecords,
        notifier: ctx.notifier,
        watch: config.updateWatch,
      }),
  )
  part(
    "cluster",
    () =>
      new (require("../cluster/membership.ts") as typeof import("../cluster/membership.ts")).Cluster(
        config.dataDir,
        now,
      ),
  )
  part(
    "nodes",
    () =>
      new (require("../cluster/nodes.ts") as typeof import("../cluster/nodes.ts")).NodeRegistry(config.dataDir, now),
  )
  part("verbs", () => {
    const { StackVerbs } = require("../verbs/stack-verbs.ts") as typeof import("../verbs/stack-verbs.ts")
    return new StackVerbs({
      stacks: ctx.stacks,
      engine,
      compose: ctx.compose,
      guard: ctx.guard,
      events: ctx.events,
      config: { bindRoots: config.bindRoots, secretKeys: config.secretKeys, transferImage: config.transferImage },
    })
  })
  part("git", () => {
    const { GitVerbs } = require("../verbs/git-verbs.ts") as typeof import("../verbs/git-verbs.ts")
    const { DEFAULT_LIMITS } = require("../git/tree.ts") as typeof import("../git/tree.ts")
    return new GitVerbs({
      stacks: ctx.stacks,
      verbs: ctx.verbs,
      engine,
      events: ctx.events,
      limits: { ...DEFAULT_LIMITS, fileBytes: config.gitMaxFileBytes, fetchBytes: config.gitMaxFetchBytes },
      watch: config.updateWatch,
      started: startedWall,
    })
  })
  part("backups", () => {
    const { BackupVerbs } = require("../verbs/backup-verbs.ts") as typeof import("../verbs/backup-verbs.ts")
    const { Repos } = require("../backups/repos.ts") as typeof import("../backups/repos.ts")
    return new BackupVerbs({
      stacks: ctx.stacks,
      engine,
      events: ctx.events,
      serverId: ctx.serverId,
      nodes: ctx.nodes,
      cluster: ctx.cluster,
      repos: new Repos(config.dataDir),
      config: { transferImage: config.transferImage, bindRoots: config.bindRoots },
      timeout: 3600,
      now,
      started,
    })
  })
  part(
    "scans",
    () =>
      new (require("../images/scan-queue.ts") as typeof import("../images/scan-queue.ts")).ScanQueue(
        config.dataDir,
        (ref) => ctx.scanner.scan(ref),
        ctx.events,
        now,
      ),
  )
  part("policies", () => {
    const { PolicyScheduler } = require("../updates/scheduler.ts") as typeof import("../updates/scheduler.ts")
    return new PolicyScheduler({
      stacks: ctx.stacks,
      engine,
      imageUpdates: ctx.imageUpdates,
      records: ctx.updateRecords,
      guard: ctx.guard,
      notifier: ctx.notifier,
      events: ctx.events,
      interval: config.updateInterval,
      now,
    })
  })
  part("tts", () => new (require("../tts/speaker.ts") as typeof import("../tts/speaker.ts")).Speaker(config.tts))
  part(
    "stats",
    () =>
      new (require("../stats/sampler.ts") as typeof import("../stats/sampler.ts")).StatsSampler(engine, {
        interval: config.stats.interval,
        history: config.stats.history,
        now,
        disk: config.dataDir,
      }),
  )
  part(
    "diskUsage",
    () =>
      new (require("../engine/disk-usage.ts") as typeof import("../engine/disk-usage.ts")).DiskUsageCache(
        engine,
        30_000,
        now,
      ),
  )
  part(
    "engineVersion",
    () =>
      new (require("../engine/reused.ts") as typeof import("../engine/reused.ts")).Reused(
        () => engine.version(),
        30_000,
        now,
      ),
  )
  part("files", () =>
    (require("../files/trees.ts") as typeof import("../files/trees.ts")).fileTrees(
      engine,
      config.transferImage,
      config.dataDir,
    ),
  )
  part("oidc", () =>
    config.auth.oidc
      ? new (require("../auth/oidc.ts") as typeof import("../auth/oidc.ts")).Oidc(config.auth.oidc, now)
      : null,
  )
  return ctx
}
