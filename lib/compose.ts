// The compose runner: the only code that spawns the compose CLI. Once, on first use, it detects the
// `docker compose` plugin (v2) or else the standalone `docker-compose` (v1, all Debian 12 has).
// Every call names the project, its file, its folder and its env file, and runs against the
// service's engine (DOCKER_HOST). Output lines are streamed into the event bus as they come, with
// every secret value of the stack replaced by "***"; the same redacted text is returned.
import { join } from "node:path"
import { envRecord, redact, secretValues, type EnvVar } from "./env.ts"
import type { EventBus } from "./events.ts"
import { HttpError } from "./http-error.ts"

export type ComposeFlavour = "v1" | "v2"

/** A compose project as it lies on disk: `<dir>/compose.yaml` and `<dir>/.env`. */
export interface ComposeProject {
  name: string
  dir: string
  /** The stack's environment: handed to the CLI (exact values for interpolation) and redacted from its output. */
  env: EnvVar[]
}

export interface ComposeResult {
  code: number
  /** stdout and stderr lines in arrival order, secrets redacted. */
  output: string
}

export interface ComposeRunner {
  flavour(): Promise<ComposeFlavour>
  /** Runs `compose <global flags> <args>`; `action` names the event (`<action>.output`). */
  run(project: ComposeProject, args: string[], action: string): Promise<ComposeResult>
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
    return await Bun.spawn(cmd, { env, stdout: "ignore", stderr: "ignore", stdin: "ignore" }).exited
  } catch {
    return 127
  }
}

export function globalArgs(project: ComposeProject): string[] {
  return ["--ansi", "never", "-p", project.name, "-f", join(project.dir, COMPOSE_FILE), "--project-directory", project.dir, "--env-file", join(project.dir, ENV_FILE)]
}

async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ""
  for await (const chunk of stream) {
    const parts = (pending + decoder.decode(chunk, { stream: true })).split(/\r?\n/)
    pending = parts.pop() ?? ""
    for (const p of parts) if (p.trim()) onLine(p)
  }
  if (pending.trim()) onLine(pending)
}

export interface ComposeRunnerOptions {
  /** The engine's DOCKER_HOST. */
  host: string
  /** PATH, HOME, DOCKER_CONFIG: the same for detection and for every run, so a plugin found once is found again. */
  toolEnv: Record<string, string>
  events: EventBus
  probe?: Probe
}

export function composeRunner({ host, toolEnv, events, probe = exitCode }: ComposeRunnerOptions): ComposeRunner {
  const base: Record<string, string> = { ...toolEnv, DOCKER_HOST: host }
  let detected: Promise<ComposeCli> | undefined
  const cli = () => (detected ??= detectCompose(probe, base))
  return {
    flavour: async () => (await cli()).flavour,
    async run(project, args, action) {
      const { cmd } = await cli()
      const path = Bun.which(cmd[0]!, { PATH: base.PATH ?? "" })
      if (!path) throw new HttpError(500, "compose_missing", `the compose CLI (${cmd[0]}) is not installed`)
      const secrets = secretValues(project.env)
      const lines: string[] = []
      const onLine = (raw: string) => {
        const line = redact(raw, secrets)
        lines.push(line)
        events.publish({ type: "stack", action: `${action}.output`, name: project.name, message: line })
      }
      const proc = Bun.spawn([path, ...cmd.slice(1), ...globalArgs(project), ...args], {
        cwd: project.dir,
        env: { ...envRecord(project.env), ...base },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      })
      await Promise.all([eachLine(proc.stdout, onLine), eachLine(proc.stderr, onLine)])
      return { code: await proc.exited, output: lines.join("\n") }
    },
  }
}
