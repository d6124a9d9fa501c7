// What runs a stack: compose on the service's engine (the default), or a swarm through `docker stack`
// (lib/stacks/swarm.ts). The store (lib/stacks/store.ts) asks a stack's orchestrator to check a
// candidate (its model and the run file that deploys it), to bring the run file up and to take it
// down; everything else of a stack (files, environment, versions, locks, the undo of a failed
// change) is the store's own and the same for both.
import type { ComposeProject, ComposeRunner } from "./compose.ts"
import { candidateModel, type CandidateInput, type CheckedModel } from "./model.ts"
import { upstream } from "../errors/errors.ts"

export const ORCHESTRATORS = ["compose", "swarm"] as const
export type OrchestratorName = (typeof ORCHESTRATORS)[number]

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

export interface Orchestrator {
  /** The candidate's model, checked (400 for what may not run), and the run file that deploys exactly it. */
  check(input: CandidateInput): Promise<CheckedModel>
  /** Brings the project's run file (`project.file`) up; a domain error when it did not come up. */
  up(project: ComposeProject, opts?: UpOptions): Promise<void>
  /** Takes the project down. */
  down(project: ComposeProject, opts?: DownOptions): Promise<void>
}

/** The last lines of a CLI's output, as an error message. */
export const tailOf = (output: string) => output.split("\n").slice(-20).join("\n") || "no output"

/** Compose: `config` checks, `up -d` brings up (and recreates what binds a changed file), `down` takes down. */
export function composeOrchestrator(runner: ComposeRunner): Orchestrator {
  const must = async (project: ComposeProject, args: string[], action: string, signal?: AbortSignal) => {
    const { code, output } = await runner.run(project, args, action, { signal })
    if (code !== 0) throw upstream(`compose ${args[0]} failed: ${tailOf(output)}`, "compose_failed")
  }
  return {
    check: (input) => candidateModel(runner, input),
    async up(project, { pull, recreate = [], action = "up", signal } = {}) {
      if (pull) await must(project, ["pull"], "pull", signal)
      await must(project, ["up", "-d", "--remove-orphans"], action, signal)
      if (recreate.length)
        await must(project, ["up", "-d", "--no-deps", "--force-recreate", ...recreate], action, signal)
    },
    async down(project, { volumes, action = "down", signal } = {}) {
      await must(project, ["down", "--remove-orphans", ...(volumes ? ["--volumes"] : [])], action, signal)
    },
  }
}
