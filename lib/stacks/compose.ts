// The compose runner: the only code that spawns the compose CLI. Once, on first use, it detects the
// `docker compose` plugin (v2) or else the standalone `docker-compose` (v1, all Debian 12 has).
// Every call names the project, its file, its folder and its env file, and runs against the
// service's engine (DOCKER_HOST). Output lines are streamed into the event bus as they come, with
// every secret value of the stack replaced by "***" (a line shows only part of a multi-line secret:
// `redact` hides its longer lines there); the whole output, redacted as one text, is returned.
// Every call has a deadline (SVC_COMPOSE_TIMEOUT for `run`, SVC_COMPOSE_CONFIG_TIMEOUT for `config` and
// `merge`): past it compose's process group is stopped (lib/engine/spawn.ts) and the call answers 504
// `compose_timeout` with compose's output so far. With `credentials`, every call gets a DOCKER_CONFIG
// of its own (lib/registries): the credentials of the registries its images need, for a call that
// may pull, and none for the others; the host's own configuration is never read. A call that failed
// on a registry (refused credentials, a pull limit, an untrusted certificate, a registry down) is an
// error naming that registry instead of compose's output. What compose reads in the clear (the
// stack's run file, kept sealed in its records, and its env file, rendered from the environment; a
// candidate laid out for `config`) lies in a room of its own while compose runs
// (lib/engine/clear-room.ts): a private tmpfs no container can see, gone when compose exits.
import { join } from "node:path"
import { envRecord, redact, renderEnvFile, secretValues, type EnvVar } from "./env.ts"
import type { EventBus } from "../engine/events.ts"
import { registryFailureIn } from "../engine/registry-errors.ts"
import { spawnBounded, type Bounded, type Deadline, type Stopped } from "../engine/spawn.ts"
import type { ClearEntry, ClearRooms, Piped } from "../engine/clear-room.ts"
import { readOpened } from "../data/sealed.ts"
import { canceled, DomainError, internal, timedOut } from "../errors/errors.ts"

export type ComposeFlavour = "v1" | "v2"

/** A compose project: its name, its folder (the project directory), the file compose runs and its environment. */
export interface ComposeProject {
  name: string
  dir: string
  /** The compose file compose runs, sealed or not (default `<dir>/compose.yaml`); opened into the run's room. */
  file?: string
  /** The stack's environment: handed to the CLI (exact values for interpolation), rendered as its env file, and redacted from its output. */
  env: EnvVar[]
}

export interface ComposeResult {
  code: number
  /** stdout and stderr lines in arrival order, secrets redacted. */
  output: string
}

export interface ComposeRunner {
  /** The environment every compose call gets under the project's: PATH, HOME, DOCKER_CONFIG, DOCKER_HOST. */
  readonly env: Record<string, string>
  flavour(): Promise<ComposeFlavour>
  /** Runs `compose <global flags> <args>`; `action` names the event (`<action>.output`). */
  run(project: ComposeProject, args: string[], action: string, options?: RunOptions): Promise<ComposeResult>
  /**
   * Compose's resolved model of a candidate: its entries (`compose.yaml`, `.env`, the stack's files,
   * links to its data) laid out in a room that is the project directory and the working folder, so
   * relative paths resolve there as they will in the stack's folder; the result's `dir` is the room's
   * path, for the caller to map back. Every profile is enabled (v2), so the model holds every service
   * the file declares. stdout is returned as printed (JSON with v2, YAML with v1) and published
   * nowhere: it holds the environment in the clear.
   */
  config(project: ComposeProject, candidate: ComposeCandidate): Promise<ComposeConfigResult>
  /**
   * The files of a project brought up elsewhere with several `-f`, merged into one as compose merges
   * them, in their folder `dir`, with variables, relative paths and the model's layout left as written
   * (v2's `config --no-interpolate --no-path-resolution --no-normalize`). Undefined with v1, whose
   * `config` writes the values of an `env_file` into the file, and when compose refuses the files.
   */
  merge(files: string[], dir: string): Promise<string | undefined>
}

export interface RunOptions {
  /** Stops the run early (503 `compose_aborted`). */
  signal?: AbortSignal
  /** Seconds, instead of the runner's own deadline. */
  timeout?: number
  /** The project's folder is a room laid out with these entries (`compose.yaml` among them) instead of `project.dir`. */
  layout?: ClearEntry[]
}

/** Seconds a compose call may take. */
export interface ComposeTimeouts {
  /** `run`: up, pull, down... */
  run: number
  /** `config` and `merge`, which only read files. */
  config: number
}

export const COMPOSE_TIMEOUTS: ComposeTimeouts = { run: 15 * 60, config: 60 }

/** Seconds `docker compose version` may take while the CLI is detected. */
const PROBE_TIMEOUT = 30

export interface ComposeCandidate {
  /** The candidate's folder: `compose.yaml`, `.env`, the stack's files, links to what else lies in its folder. */
  entries: ClearEntry[]
}

export interface ComposeConfigResult extends ComposeResult {
  flavour: ComposeFlavour
  /** Where the candidate lay while compose read it (its paths in the model and the output start there). */
  dir: string
  /** How the model is printed: JSON (compose v2) or YAML (compose v1, the docker CLI's `stack config`). */
  format: "json" | "yaml"
  /** The model as compose printed it (secrets in the clear: parse it, never log or return it). */
  stdout: string
}

export const COMPOSE_FILE = "compose.yaml"
export const ENV_FILE = ".env"

export interface ComposeCli {
  cmd: string[]
  flavour: ComposeFlavour
}

/** Answers the exit code of a command run with the given environment. */
export type Probe = (cmd: string[], env: Record<string, string>) => Promise<number>

/** The plugin when `docker compose version` exits 0, else `docker-compose`. */
export async function detectCompose(probe: Probe, env: Record<string, string>): Promise<ComposeCli> {
  if ((await probe(["docker", "compose", "version"], env)) === 0) return { cmd: ["docker", "compose"], flavour: "v2" }
  return { cmd: ["docker-compose"], flavour: "v1" }
}

async function exitCode(cmd: string[], env: Record<string, string>): Promise<number> {
  try {
    return await spawnBounded(
      cmd,
      { env, stdout: "ignore", stderr: "ignore", stdin: "ignore" },
      { timeout: PROBE_TIMEOUT },
    ).exited
  } catch {
    return 127
  }
}

/** Every call's flags: the project's name, the file compose runs, its folder and its env file. */
export function globalArgs(name: string, file: string, dir: string, envFile: string): string[] {
  return ["--ansi", "never", "-p", name, "-f", file, "--project-directory", dir, "--env-file", envFile]
}

/** Calls `onLine` with each non-blank line of a stream as it arrives. */
export async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ""
  for await (const chunk of stream) {
    const parts = (pending + decoder.decode(chunk, { stream: true })).split(/\r?\n/)
    pending = parts.pop() ?? ""
    for (const p of parts) if (p.trim()) onLine(p)
  }
  if (pending.trim()) onLine(pending)
}

/** A DOCKER_CONFIG of its own for one call (lib/registries/runs.ts): its folder, removed by `close`. */
export interface RunConfig {
  dir: string
  close(): void
}

/** Opens the DOCKER_CONFIG of a call that may pull `images` (none for a call that pulls nothing). */
export type RunCredentials = (images: string[]) => Promise<RunConfig>

/** The commands of compose and `docker stack` that may pull images. */
const PULLING = new Set(["pull", "up", "create", "run", "deploy"])

/** The images a run file (sealed or not) names (the checked model as JSON: `services.*.image`); none for a file that is no such JSON. */
export function runImages(file: string | undefined): string[] {
  try {
    const model = JSON.parse(readOpened(file ?? "") ?? "")
    return Object.values<{ image?: unknown }>(model?.services ?? {}).flatMap((s) =>
      typeof s?.image === "string" ? [s.image.replaceAll("$$", "$")] : [],
    )
  } catch {
    return []
  }
}

/**
 * Runs `fn` with the environment a call of `args` gets: `base` with a DOCKER_CONFIG of its own when
 * there are `credentials`, holding what the images of `project`'s run file need if the call may pull;
 * a failure on a registry is thrown as the registry's error, the project's secrets redacted from it
 * (the registry it names is read from the images, where a secret may have been interpolated). Answers
 * what `fn` answered.
 */
export async function withCredentials<T extends { code: number; output: string }>(
  {
    credentials,
    project,
    args,
    base,
  }: {
    credentials: RunCredentials | undefined
    project: Pick<ComposeProject, "file"> & Partial<Pick<ComposeProject, "env">>
    args: string[]
    base: Record<string, string>
  },
  fn: (env: Record<string, string>) => Promise<T>,
): Promise<T> {
  const images = PULLING.has(args[0] ?? "") ? runImages(project.file) : []
  const config = await credentials?.(images)
  try {
    const result = await fn(config ? { ...base, DOCKER_CONFIG: config.dir } : base)
    if (result.code !== 0 && images.length) {
      const failure = registryFailureIn(result.output, images)
      if (failure) throw failure.withMessage(redact(failure.message, secretValues(project.env ?? [])))
    }
    return result
  } finally {
    config?.close()
  }
}

/**
 * Runs what `start` spawns (in its room, with the deadline it is given), each line of its output
 * published as the stack's `<action>.output` event as it comes, the stack's secrets redacted; stopped
 * at `timeout` seconds or by `signal` (504 / 503 naming `command`). Answers the exit code and the
 * whole output, redacted.
 */
export async function streamed(
  start: (deadline: Deadline) => Promise<Bounded<Piped>>,
  project: ComposeProject,
  o: { action: string; events: EventBus; timeout: number; signal?: AbortSignal; command: string },
): Promise<ComposeResult> {
  const secrets = secretValues(project.env)
  const lines: string[] = []
  const onLine = (line: string) => {
    lines.push(line)
    o.events.publish({
      type: "stack",
      action: `${o.action}.output`,
      name: project.name,
      message: redact(line, secrets),
    })
  }
  const { proc, exited, stopped } = await start({ timeout: o.timeout, signal: o.signal })
  await Promise.all([eachLine(proc.stdout, onLine), eachLine(proc.stderr, onLine)])
  const result = { code: await exited, output: redact(lines.join("\n"), secrets) }
  const why = stopped()
  if (why) throw stoppedError(why, o.command, o.timeout, result.output)
  return result
}

export interface ComposeRunnerOptions {
  /** The engine's DOCKER_HOST. */
  host: string
  /** PATH, HOME, DOCKER_CONFIG: the same for detection and for every run, so a plugin found once is found again. */
  toolEnv: Record<string, string>
  events: EventBus
  /** Where compose reads what it must read in the clear. */
  rooms: ClearRooms
  probe?: Probe
  timeouts?: ComposeTimeouts
  /** Each call's own DOCKER_CONFIG with the registry credentials it needs (lib/registries); without, the tool environment's. */
  credentials?: RunCredentials
}

/** The answer to a call (`command`, e.g. "compose up -d") stopped before it ended: 504 at its deadline, 503 when its caller gave up. */
export function stoppedError(why: Stopped, command: string, timeout: number, output: string): DomainError {
  const said = output.split("\n").slice(-20).join("\n") || "no output"
  if (why === "aborted")
    return canceled(`${command} was stopped: its caller gave up; its output: ${said}`, "compose_aborted")
  return timedOut(
    `${command} did not finish within ${timeout} s and was stopped; its output: ${said}`,
    "compose_timeout",
  )
}

/** A run file as compose reads it: opened when sealed (an internal error when it is missing: the stack's records are damaged). */
export function openedRunFile(path: string): string {
  const text = readOpened(path)
  if (text === undefined) throw internal(`the run file ${path} is missing`, "run_file_missing")
  return text
}

/** What compose v2 prints when its model cannot be marshalled as JSON (`json: error calling MarshalJSON for type ...`). */
const JSON_PRINTER_FAILED = /^json: (error calling MarshalJSON|unsupported)/m

export function composeRunner({
  host,
  toolEnv,
  events,
  rooms,
  probe = exitCode,
  timeouts = COMPOSE_TIMEOUTS,
  credentials,
}: ComposeRunnerOptions): ComposeRunner {
  const base: Record<string, string> = { ...toolEnv, DOCKER_HOST: host }
  /** A config run's result, its stderr (redacted) published as the stack's `config.output` event. */
  const published = <R extends { output: string }>(project: ComposeProject, result: R): R => {
    if (result.output)
      events.publish({ type: "stack", action: "config.output", name: project.name, message: result.output })
    return result
  }
  let detected: Promise<ComposeCli> | undefined
  const cli = () => (detected ??= detectCompose(probe, base))
  /** The CLI's argv prefix (the binary found on PATH) and its flavour. */
  const binary = async () => {
    const { cmd, flavour } = await cli()
    const path = Bun.which(cmd[0]!, { PATH: base.PATH ?? "" })
    if (!path) throw internal(`the compose CLI (${cmd[0]}) is not installed`, "compose_missing")
    return { argv: [path, ...cmd.slice(1)], flavour }
  }
  return {
    env: base,
    flavour: async () => (await cli()).flavour,
    async run(project, args, action, { signal, timeout = timeouts.run, layout } = {}) {
      const { argv, flavour } = await binary()
      // The run's room: the run file opened and the env file rendered, or the whole project folder laid out.
      const room = rooms.room()
      const dir = layout ? room : project.dir
      const file = layout || !project.file ? join(dir, COMPOSE_FILE) : join(room, "run.json")
      const entries: ClearEntry[] = [
        ...(layout ?? []),
        ...(!layout && project.file ? [{ path: "run.json", content: openedRunFile(project.file) }] : []),
        { path: ENV_FILE, content: renderEnvFile(project.env, flavour) },
      ]
      const cmd = [...argv, ...globalArgs(project.name, file, dir, join(room, ENV_FILE)), ...args]
      return withCredentials({ credentials, project, args, base }, (env) =>
        streamed(
          (deadline) => rooms.spawn(room, entries, cmd, dir, { ...envRecord(project.env), ...env }, deadline),
          project,
          {
            action,
            events,
            timeout,
            signal,
            command: `compose ${args.join(" ")}`,
          },
        ),
      )
    },
    async config(project, candidate) {
      const { argv, flavour } = await binary()
      const room = rooms.room()
      const flags = globalArgs(project.name, join(room, COMPOSE_FILE), room, join(room, ENV_FILE))
      const print = (args: string[]) =>
        withCredentials({ credentials, project: {}, args, base }, async (env) => {
          const { proc, exited, stopped } = await rooms.spawn(
            room,
            candidate.entries,
            [...argv, ...flags, ...args],
            room,
            { ...envRecord(project.env), ...env },
            { timeout: timeouts.config },
          )
          const secrets = secretValues(project.env)
          const [stdout, stderr] = await Promise.all([
            new Response(proc.stdout).text(),
            new Response(proc.stderr).text(),
          ])
          const output = redact(stderr.trim(), secrets)
          const code = await exited
          const why = stopped()
          if (why) throw stoppedError(why, "compose config", timeouts.config, output)
          return { code, stdout, output, dir: room }
        })
      if (flavour === "v1") return { flavour, format: "yaml", ...published(project, await print(["config"])) }
      const json = await print(["--profile", "*", "config", "--format", "json"])
      // Compose's JSON printer fails on some models it reads and runs (2.26: a build's `ssh` key);
      // its YAML printer prints the same model.
      if (json.code === 0 || !JSON_PRINTER_FAILED.test(json.output))
        return { flavour, format: "json", ...published(project, json) }
      return { flavour, format: "yaml", ...published(project, await print(["--profile", "*", "config"])) }
    },
    async merge(files, dir) {
      const { argv, flavour } = await binary()
      if (flavour === "v1") return undefined
      const { proc, exited, stopped } = spawnBounded(
        [
          ...argv,
          "--ansi",
          "never",
          ...files.flatMap((f) => ["-f", f]),
          "--project-directory",
          dir,
          "config",
          "--no-interpolate",
          "--no-path-resolution",
          "--no-normalize",
        ],
        { cwd: dir, env: base, stdin: "ignore", stdout: "pipe", stderr: "ignore" },
        { timeout: timeouts.config },
      )
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), exited])
      const why = stopped()
      if (why) throw stoppedError(why, "compose config", timeouts.config, "")
      return code === 0 ? stdout : undefined
    },
  }
}
