// What runs a stack: compose on the service's engine (lib/stacks/compose-orchestrator.ts, the
// default), or a swarm through `docker stack` (lib/stacks/swarm.ts). Everything of a stack that
// differs between them is a member of `Orchestrator`, and no code outside these files asks which one
// a stack has: the store (lib/stacks/store.ts) hands out a stack's orchestrator (`orchestratorOf`)
// and asks it to check a candidate, bring the run file up, pull for an update and take the stack
// down; the live views, the actions, the log, the guarded update's pin, watch and way back ask it
// too. Everything else of a stack (files, environment, versions, locks, the undo of a failed change)
// is the store's own and the same for all. docs/ARCHITECTURE.md says what a new orchestrator implements.
import type { ContainerRecord, Redactor } from "../engine/containers.ts"
import type { ContainerSummary } from "../engine/client.ts"
import type { LogLineRecord, LogQuery } from "../engine/logs.ts"
import type { ComposeProject } from "./compose.ts"
import type { EnvVar } from "./env.ts"
import type { CandidateInput, CheckedModel } from "./model.ts"
import type { WatchResult } from "./watch.ts"

export const ORCHESTRATORS = ["compose", "swarm"] as const
export type OrchestratorName = (typeof ORCHESTRATORS)[number]

/**
 * Where a stack's named volumes keep their data: `engine`, in the one engine that runs it (a copy or
 * a backup carries them); `nodes`, on each node a task of it ran on, each with data of its own (there
 * is no one copy to carry). Read by name, for a stack described by another server's export too.
 */
export const VOLUMES_LIE_ON: Record<OrchestratorName, "engine" | "nodes"> = { compose: "engine", swarm: "nodes" }

/**
 * What a client may offer for a stack, as its orchestrator says (the API answers it with the stack,
 * so that no client asks which orchestrator a stack has): the actions it has a meaning for, and where
 * its containers run: `engine`, on this one (each service's containers, their usage sampled here), or
 * `nodes`, on the orchestrator's nodes (each service's replicas and tasks).
 */
export interface Capabilities {
  actions: StackAction[]
  runs_on: "engine" | "nodes"
}

export const CAPABILITIES: Record<OrchestratorName, Capabilities> = {
  compose: { actions: ["start", "stop", "restart", "pause", "unpause"], runs_on: "engine" },
  // The swarm keeps a stack's tasks running: they are replaced (restart), never stopped or paused.
  swarm: { actions: ["restart"], runs_on: "nodes" },
}

/** An orchestrator other than the default, as a stack's state and its export name it (compose, the default, by leaving it out). */
export type NamedOrchestrator = Exclude<OrchestratorName, "compose">

export const NAMED_ORCHESTRATORS = ORCHESTRATORS.filter((n): n is NamedOrchestrator => n !== "compose")

/** How a stack's state records what runs it. */
export const recordedOrchestrator = (name: OrchestratorName): { orchestrator?: NamedOrchestrator } =>
  name === "compose" ? {} : { orchestrator: name }

// A stack while it runs, as the API answers it: its services with their containers, or, where an
// orchestrator schedules tasks, each service's replicas and tasks on their nodes.
export type StackStatus = "running" | "partly running" | "paused" | "stopped"

/** A task the orchestrator keeps running, on its node. */
export interface TaskView {
  id: string
  /** The node's hostname (its id when the orchestrator does not say). */
  node: string
  state: string
  desired_state: string
  error?: string
}

export interface ServiceView {
  name: string
  containers: ContainerRecord[]
  /** Where an orchestrator schedules tasks: the replicas it wants and those running, and its tasks (the containers are on their nodes). */
  replicas?: { desired: number; running: number }
  tasks?: TaskView[]
}

export interface StackView {
  name: string
  managed: boolean
  /** What runs it. */
  orchestrator: OrchestratorName
  /** What a client may offer for it (its orchestrator's). */
  capabilities: Capabilities
  status: StackStatus
  services: ServiceView[]
  current_version: number | null
  env_pending: boolean
  /** The stack's files changed since the current version (not yet applied). */
  files_pending: boolean
  /** The stack's files besides its compose file (relative paths). */
  files: string[]
  /** What the start recovered of an operation a killed process left (lib/service/recovery.ts), until the next release. */
  recovered?: { time: string; message: string }
}

/** What a view shows of a stack kept here besides what runs: its name, the services its compose file declares, its state. */
export interface Kept {
  name: string
  services: string[]
  state: {
    current_version: number | null
    env_pending: boolean
    files_pending?: boolean
    files?: string[]
    recovered?: { time: string; message: string }
  }
}

/** How a stack fares, for the dashboard: running, degraded (with why) or stopped. */
export interface StackHealth {
  health: "running" | "degraded" | "stopped"
  reason: string | null
}

export interface UpOptions {
  /** Pull the images first. */
  pull?: boolean
  /** Services to make anew even when their configuration is unchanged (they bind a file whose content changed). */
  recreate?: string[]
  /** Names the output's events (`<action>.output`); "up" unless given. */
  action?: string
  signal?: AbortSignal
}

export interface DownOptions {
  /** The stack's named volumes too. */
  volumes?: boolean
  action?: string
  signal?: AbortSignal
}

export type StackAction = "start" | "stop" | "restart" | "pause" | "unpause"

/** A service's image as it ran before a guarded change. */
export interface PinnedImage {
  service: string
  /** The reference it was made from. */
  ref: string
  /** What it ran: `repo@sha256:...`, or an image id where there is no registry digest. */
  image: string
  /** Whether it ran (a stopped one-shot service is not watched). */
  running: boolean
}

/** What a stack ran before a guarded change: the version and records to come back to, and each service's image. */
export interface Pinned {
  stack: string
  version: number | null
  /** The recorded compose file, environment and files of that version (in memory only: the environment holds secrets). */
  compose: string
  env: EnvVar[]
  files: Record<string, string>
  images: PinnedImage[]
}

/** A service's image before and after a guarded change. */
export interface ImageChange {
  service: string
  ref: string
  /** What ran before: `repo@sha256:...`, or the image id for an image with no registry digest. */
  from: string
  /** What the update brought (the same notation); null when the service's image did not move. */
  to: string | null
  from_id: string
  to_id: string | null
}

export interface WatchRun {
  /** Seconds to watch. */
  window: number
  /** When the change was made (ms). */
  since: number
  /** Values to hide from reasons (the stack's secrets). */
  secrets: string[]
  maxRestarts?: number
  pollMs?: number
  now?: () => number
}

/** The store's steps a way back may take, and what the failed change was. */
export interface WayBack {
  /** The change was an update (the records stayed; only images moved). */
  update: boolean
  /** The stack's records are the pinned ones. */
  sameRecords: boolean
  /** Seconds of the watch that failed. */
  window: number
  /** Brings the stack up as the store keeps it. */
  up(): Promise<void>
  /** Deploys the pinned version again. */
  redeploy(): Promise<void>
}

export interface Orchestrator {
  readonly name: OrchestratorName
  /** The candidate's model, checked (invalid for what may not run), and the run file that deploys exactly it. */
  check(input: CandidateInput): Promise<CheckedModel>
  /** Brings the project's run file (`project.file`) up; a domain error when it did not come up. */
  up(project: ComposeProject, opts?: UpOptions): Promise<void>
  /** Takes the project down. */
  down(project: ComposeProject, opts?: DownOptions): Promise<void>
  /** The named volumes it made for a stack on this engine. */
  volumes(name: string): Promise<string[]>
  /** An update's pull of newer images for the project's references: "up" when that brought them up too, "pulled" when the stack is still to be brought up with them. */
  pull(project: ComposeProject, opts?: { signal?: AbortSignal }): Promise<"up" | "pulled">
  /** The views of stacks kept here, in their order; `containers` are the engine's (all of them, read once). */
  views(kept: Kept[], containers: ContainerSummary[], redactor: Redactor): Promise<StackView[]>
  /** How a view of its stack fares, for the dashboard. */
  health(view: StackView): StackHealth
  /** An action on what runs the stack: what it acted on ("2 containers"); undefined when nothing of that name runs; a conflict `not_supported` for an action it has no meaning for. */
  act(name: string, action: StackAction): Promise<string | undefined>
  /** Whether the stack runs nothing because a person stopped it (a sync then leaves it stopped). */
  stopped(name: string): Promise<boolean>
  /** The log of the stack its view shows: every line as it comes, in batches. */
  logs(view: StackView, q: LogQuery): Promise<AsyncIterable<LogLineRecord[]>>
  /** What the stack runs now, beside the records of its version (`recorded`), to compare and come back to; what it holds for that is let go by `release`. */
  pin(name: string, recorded: Omit<Pinned, "stack" | "images">): Promise<Pinned>
  /** Each pinned service's image and what it runs now; `moved` when any service's image is no longer the pinned one. */
  changes(pin: Pinned): Promise<{ images: ImageChange[]; moved: boolean }>
  /** Whether a change's error says that what it brought up did not run (its watch failed early), rather than that the change itself failed. */
  failedToRun(err: unknown): boolean
  /** Watches what runs the stack for a window: fails at once on what will not run. */
  watch(name: string, pin: Pinned | undefined, run: WatchRun): Promise<WatchResult>
  /** Brings back what ran at the pin; answers what could not be brought back, with what to do by hand. */
  rollBack(pin: Pinned, way: WayBack): Promise<string[]>
  /** Lets go of what the pin holds. */
  release(pin: Pinned): Promise<void>
}

/** The last lines of a CLI's output, as an error message. */
export const tailOf = (output: string) => output.split("\n").slice(-20).join("\n") || "no output"

export const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err))
