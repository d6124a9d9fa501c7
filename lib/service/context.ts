// The one object every handler gets: built once at start, or by a test with a fake engine.
import { existsSync } from "node:fs"
import type { Config } from "./config.ts"
import { dockerEngine, type Engine, type EngineVersion } from "../engine/client.ts"
import { EventBus } from "../engine/events.ts"
import { DiskUsageCache } from "../engine/disk-usage.ts"
import { Reused } from "../engine/reused.ts"
import { serverId as identity } from "../data/identity.ts"
import { composeRunner, type ComposeRunner } from "../stacks/compose.ts"
import { redactorFor } from "../stacks/env.ts"
import { Stacks } from "../stacks/store.ts"
import { stackCli } from "../stacks/stack-cli.ts"
import { engineSwarm, swarmOrchestrator } from "../stacks/swarm.ts"
import { LiveMounts } from "../stacks/live-mounts.ts"
import { Cluster } from "../cluster/membership.ts"
import { NodeRegistry } from "../cluster/nodes.ts"
import { createMetrics } from "../metrics/metrics.ts"
import type { Metrics } from "../metrics/types.ts"
import { ScanQueue } from "../images/scan-queue.ts"
import { createScanner, type Scanner } from "../images/scanner.ts"
import { ImageUpdates } from "../images/update-checks.ts"
import { UpdateGuard } from "../updates/guard.ts"
import { Notifier } from "../updates/notify.ts"
import { UpdateRecords } from "../updates/records.ts"
import { PolicyScheduler } from "../updates/scheduler.ts"
import { Speaker } from "../tts/speaker.ts"
import { StatsSampler } from "../stats/sampler.ts"
import { StackVerbs } from "../verbs/stack-verbs.ts"
import { GitVerbs } from "../verbs/git-verbs.ts"
import { DEFAULT_LIMITS } from "../git/tree.ts"
import { BackupVerbs } from "../verbs/backup-verbs.ts"
import { Repos } from "../backups/repos.ts"
import { Jobs } from "./jobs.ts"
import { Auth } from "../auth/auth.ts"
import { Oidc } from "../auth/oidc.ts"

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
  /** Registry update checks of images and their records (updates.json); not the guarded updates (`guard`). */
  imageUpdates: ImageUpdates
  /** Guarded updates: pin, watch, rollback, verdicts (lib/updates/guard.ts). */
  guard: UpdateGuard
  /** Each stack's update history and policy (lib/updates/records.ts). */
  updateRecords: UpdateRecords
  /** Notifications to SVC_NOTIFY_URLS (lib/updates/notify.ts). */
  notifier: Notifier
  /** Runs the stacks' update policies (started by server.ts). */
  policies: PolicyScheduler
  /** The Prometheus registry; request and probe durations are observed into it. */
  metrics: Metrics
  /** The engine's disk usage, one count at a time and reused for 30 s (dashboard). */
  diskUsage: DiskUsageCache
  /** The engine's version, reused for 30 s: asking for it costs the engine more than listing 200 containers (dashboard). */
  engineVersion: Reused<EngineVersion>
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
}

/** Each part from `overrides` when given, else built from the config; every part built once. */
export async function createContext(config: Config, overrides: Partial<Omit<Ctx, "config">> = {}): Promise<Ctx> {
  const o = overrides
  const now = o.now ?? Date.now
  const engine = o.engine ?? dockerEngine(config.dockerHost, config.dockerApiVersion)
  // Engine events about a stack's objects hide its secrets (the store is made below).
  const events: EventBus = o.events ?? new EventBus((project) => redactorFor(stacks)(project))
  const compose = o.compose ?? composeRunner({ host: engine.host, toolEnv: config.toolEnv, events, timeouts: config.composeTimeouts })
  const scanner = o.scanner ?? createScanner({ choice: config.scanner, timeout: config.scanTimeout, engine, env: config.scannerEnv })
  // A stack is watched from its first deploy's `up` on: its records are written before.
  const liveMounts: LiveMounts = o.liveMounts ?? new LiveMounts({ engine, events, managed: (name) => existsSync(stacks.records(name)), allowedFor: (name) => stacks.allows(name), secrets: (name) => stacks.secrets(name) })
  // Swarm stacks run through the docker CLI's `docker stack` on the same engine, a swarm manager.
  const swarm = swarmOrchestrator({ cli: stackCli({ host: engine.host, toolEnv: config.toolEnv, events, cli: config.dockerCli, timeouts: config.composeTimeouts }), swarm: engineSwarm(engine), timeout: config.composeTimeouts.run })
  const stacks = o.stacks ?? new Stacks(config.dataDir, compose, { now, hostRoots: config.bindRoots, engine, swarm, liveMounts: (project, allowed) => liveMounts.check(project, allowed) })
  const imageUpdates = o.imageUpdates ?? new ImageUpdates(config.dataDir, engine, { insecure: config.insecureRegistries }, now)
  const serverId = o.serverId ?? (await identity(config.dataDir))
  const notifier = o.notifier ?? new Notifier(config.notifyUrls, { serverId, events, now })
  const updateRecords = o.updateRecords ?? new UpdateRecords(stacks, now)
  const guard = o.guard ?? new UpdateGuard({ engine, stacks, events, records: updateRecords, notifier, watch: config.updateWatch })
  const cluster = o.cluster ?? new Cluster(config.dataDir, now)
  const nodes = o.nodes ?? new NodeRegistry(config.dataDir, now)
  const verbs = o.verbs ?? new StackVerbs({ stacks, engine, compose, guard, events, config: { bindRoots: config.bindRoots, secretKeys: config.secretKeys, transferImage: config.transferImage } })
  return {
    config,
    engine,
    events,
    compose,
    stacks,
    verbs,
    git: o.git ?? new GitVerbs({ stacks, verbs, engine, events, limits: { ...DEFAULT_LIMITS, fileBytes: config.gitMaxFileBytes, fetchBytes: config.gitMaxFetchBytes }, watch: config.updateWatch }),
    backups: o.backups ?? new BackupVerbs({ stacks, engine, events, serverId, nodes, cluster, repos: new Repos(config.dataDir), config: { transferImage: config.transferImage, bindRoots: config.bindRoots }, timeout: 3600, now }),
    liveMounts,
    cluster,
    nodes,
    scanner,
    scans: o.scans ?? new ScanQueue(config.dataDir, (ref) => scanner.scan(ref), events, now),
    imageUpdates,
    notifier,
    updateRecords,
    guard,
    policies: o.policies ?? new PolicyScheduler({ stacks, engine, imageUpdates, records: updateRecords, guard, notifier, events, interval: config.updateInterval, now }),
    metrics: o.metrics ?? (await createMetrics(config.metrics)),
    tts: o.tts ?? new Speaker(config.tts),
    stats: o.stats ?? new StatsSampler(engine, { interval: config.stats.interval, history: config.stats.history, now, disk: config.dataDir }),
    diskUsage: o.diskUsage ?? new DiskUsageCache(engine, 30_000, now),
    engineVersion: o.engineVersion ?? new Reused(() => engine.version(), 30_000, now),
    jobs: o.jobs ?? new Jobs(),
    auth: o.auth ?? new Auth({ config: config.auth, dataDir: config.dataDir, now }),
    oidc: o.oidc ?? (config.auth.oidc && new Oidc(config.auth.oidc, now)),
    serverId,
    now,
  }
}
