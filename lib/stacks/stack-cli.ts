// The stack CLI runner: the only code that spawns the docker CLI for swarm stacks (`docker stack
// config`, `stack deploy`, `stack rm`). The CLI owns the format of a swarm stack: `stack config -c
// FILE` prints the model it will deploy after its own merges and interpolation, which it takes from
// its process environment (it reads no `.env`): every call gets the stack's environment as its
// process environment, under the runner's own (PATH, HOME, DOCKER_CONFIG, DOCKER_HOST).
//
// The CLI is found once, on first use: SVC_DOCKER_CLI, else a `docker` on PATH that has `stack
// config` (Debian 12's 20.10 has not), else the copy the set-up installs (BUNDLED_DOCKER_CLI).
// Output is streamed into the event bus line by line with the stack's secret values redacted, and
// every call has a deadline and the caller's signal (lib/engine/spawn.ts), as compose's. With
// `credentials`, each call gets a DOCKER_CONFIG of its own as compose's do: `stack deploy
// --with-registry-auth` sends the credentials of its images' registries to the swarm, whose nodes
// pull with them. The run file (kept sealed) and a candidate lie in a room of their own while the CLI
// reads them (lib/engine/clear-room.ts), as compose's do.
import { join } from "node:path"
import {
  runImages,
  stoppedError,
  streamed,
  withCredentials,
  type ComposeCandidate,
  type ComposeConfigResult,
  type ComposeProject,
  type ComposeResult,
  type ComposeTimeouts,
  type RunCredentials,
  type RunOptions,
} from "./compose.ts"
import { envRecord, redact, secretValues } from "./env.ts"
import type { EventBus } from "../engine/events.ts"
import { spawnBounded } from "../engine/spawn.ts"
import type { ClearRooms } from "../engine/clear-room.ts"
import { readOpened } from "../data/sealed.ts"
import { internal } from "../errors/errors.ts"

/** Where `scripts/setup.sh` installs Debian 13's docker CLI, which has `stack config`. */
export const BUNDLED_DOCKER_CLI = "/usr/local/lib/harbormaster/docker/docker"

/** Seconds `docker stack config --help` may take while the CLI is looked for. */
const PROBE_TIMEOUT = 30

export interface StackCli {
  /** The environment every call gets under the stack's: PATH, HOME, DOCKER_CONFIG, DOCKER_HOST. */
  readonly env: Record<string, string>
  /** As compose's v2 for the model check (the stack's `.env` is never read by the CLI). */
  flavour(): Promise<"v2">
  /**
   * `docker stack config -c candidate.file`: the CLI resolves relative paths against the file's
   * folder, so the candidate lies in a folder laid out as the stack's will be (lib/stacks/model.ts).
   * stdout (YAML, secrets in the clear) is returned as printed and published nowhere.
   */
  config(project: ComposeProject, candidate: ComposeCandidate): Promise<ComposeConfigResult>
  /** `docker stack <args>` (deploy, rm...); `action` names the event (`<action>.output`). */
  run(project: ComposeProject, args: string[], action: string, options?: RunOptions): Promise<ComposeResult>
}

/** Answers a command's stdout, or undefined when it cannot run or exits non-zero. */
export type HelpProbe = (cmd: string[], env: Record<string, string>) => Promise<string | undefined>

async function helpOf(cmd: string[], env: Record<string, string>): Promise<string | undefined> {
  try {
    const { proc, exited } = spawnBounded(
      cmd,
      { env, stdout: "pipe", stderr: "ignore", stdin: "ignore" },
      { timeout: PROBE_TIMEOUT },
    )
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), exited])
    return code === 0 ? out : undefined
  } catch {
    return undefined
  }
}

/**
 * The docker CLI to run: `configured` (SVC_DOCKER_CLI) as given, else the first of `docker` on PATH
 * and the bundled copy whose `stack config --help` describes `stack config` (an older CLI answers
 * its `stack` help instead).
 */
export async function findDockerCli(
  configured: string | undefined,
  env: Record<string, string>,
  probe: HelpProbe = helpOf,
  bundled = BUNDLED_DOCKER_CLI,
): Promise<string> {
  if (configured) return configured
  const candidates = [Bun.which("docker", { PATH: env.PATH ?? "" }), bundled].filter((c): c is string => !!c)
  for (const cli of candidates)
    if ((await probe([cli, "stack", "config", "--help"], env))?.includes("stack config")) return cli
  throw internal(
    `no docker CLI with \`stack config\` was found (tried ${candidates.join(", ") || "none"}): set SVC_DOCKER_CLI or run scripts/setup.sh, which installs one in ${bundled}`,
    "stack_cli_missing",
  )
}

export interface StackCliOptions {
  /** The engine's DOCKER_HOST (a swarm manager). */
  host: string
  toolEnv: Record<string, string>
  events: EventBus
  /** SVC_DOCKER_CLI. */
  cli?: string
  /** Where the CLI reads what it must read in the clear. */
  rooms: ClearRooms
  probe?: HelpProbe
  timeouts: ComposeTimeouts
  /** Each call's own DOCKER_CONFIG with the registry credentials it needs (lib/registries). */
  credentials?: RunCredentials
  /**
   * Checked before a deploy with the images of its run file: the engine resolves each image of a kept
   * registry with its credentials, so that a refusal is an error naming the registry before anything
   * is deployed (the swarm's nodes would only report "No such image").
   */
  resolve?: (images: string[]) => Promise<void>
}

export function stackCli({
  host,
  toolEnv,
  events,
  cli,
  rooms,
  probe,
  timeouts,
  credentials,
  resolve,
}: StackCliOptions): StackCli {
  const base: Record<string, string> = { ...toolEnv, DOCKER_HOST: host }
  let found: Promise<string> | undefined
  const binary = () => {
    found ??= findDockerCli(cli, base, probe)
    found.catch(() => (found = undefined))
    return found
  }
  return {
    env: base,
    flavour: async () => "v2" as const,
    async config(project, candidate) {
      const room = rooms.room()
      const argv = [await binary(), "stack", "config", "-c", join(room, "compose.yaml")]
      return withCredentials({ credentials, project: {}, args: ["config"], base }, async (env) => {
        const { proc, exited, stopped } = await rooms.spawn(
          room,
          candidate.entries,
          argv,
          room,
          { ...envRecord(project.env), ...env },
          { timeout: timeouts.config },
        )
        const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
        const output = redact(stderr.trim(), secretValues(project.env))
        if (output) events.publish({ type: "stack", action: "config.output", name: project.name, message: output })
        const code = await exited
        const why = stopped()
        if (why) throw stoppedError(why, "docker stack config", timeouts.config, output)
        return { flavour: "v2" as const, format: "yaml" as const, code, stdout, output, dir: room }
      })
    },
    async run(project, args, action, { signal, timeout = timeouts.run } = {}) {
      // The run file, opened into the run's room: an argument naming it names its copy there.
      const room = rooms.room()
      const file = project.file ? readOpened(project.file) : undefined
      const inRoom = join(room, "run.json")
      const argv = [
        await binary(),
        "stack",
        ...args.map((a) => (file !== undefined && a === project.file ? inRoom : a)),
      ]
      const entries = file === undefined ? [] : [{ path: "run.json", content: file }]
      if (args[0] === "deploy") await resolve?.(runImages(project.file))
      return withCredentials({ credentials, project, args, base }, (env) =>
        streamed(
          (deadline) => rooms.spawn(room, entries, argv, project.dir, { ...envRecord(project.env), ...env }, deadline),
          project,
          {
            action,
            events,
            timeout,
            signal,
            command: `docker stack ${args[0]}`,
          },
        ),
      )
    },
  }
}
