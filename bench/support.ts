// What every benchmark needs: a private engine in its own network namespace, the service started
// against it (the compiled binary when built), RSS readings and summary statistics.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine, parseDockerHost } from "#lib/engine/client.ts"
import { freePort } from "../tests/support/service.ts"

export const root = join(import.meta.dir, "..")

export const median = (xs: number[]) => percentile(xs, 0.5)
export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}

export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!
  return Number(line.split(/\s+/)[1]) / 1024
}

/** Milliseconds the process's live threads have run on a CPU (the scheduler's nanoseconds: finer than cpuSeconds' ticks). */
export function cpuMs(pid: number): number {
  return (
    readdirSync(`/proc/${pid}/task`).reduce(
      (ns, task) => ns + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]),
      0,
    ) / 1e6
  )
}

/** CPU seconds (user + system) the process has used. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100 // USER_HZ
}

export interface BenchEngine {
  host: string
  netns: string
  stop(): void
}

/** The engine flavours scripts/engine.sh starts: Debian 12's docker.io, and the current one (see scripts/test.sh). */
export const FLAVOURS = ["debian12", "current"] as const
export type Flavour = (typeof FLAVOURS)[number]

/** BENCH_FLAVOURS ("debian12", "current" or both, space-separated) picks the flavours a benchmark runs on. */
export function benchFlavours(): Flavour[] {
  const asked = (process.env.BENCH_FLAVOURS ?? FLAVOURS.join(" ")).split(/\s+/).filter(Boolean)
  const unknown = asked.find((f) => !FLAVOURS.includes(f as Flavour))
  if (unknown) throw new Error(`BENCH_FLAVOURS: unknown flavour "${unknown}" (${FLAVOURS.join(", ")})`)
  return asked as Flavour[]
}

export function startEngine(name: string, flavour: Flavour = "debian12"): BenchEngine {
  const netns = `hm${name}${process.pid}`
  const dir = mkdtempSync(join(tmpdir(), `hm-bench-${name}-`))
  const started = Bun.spawnSync(["bash", join(root, "scripts/engine.sh"), "start", netns, dir, flavour], {
    stderr: "inherit",
  })
  if (started.exitCode !== 0) throw new Error("the private engine did not start")
  return {
    host: started.stdout.toString().trim().split("\n").at(-1)!,
    netns,
    stop: () => void Bun.spawnSync(["bash", join(root, "scripts/engine.sh"), "stop", netns, dir]),
  }
}

/** The baseline call of the benchmarks: the engine's own `GET /containers/json?all=1`, at the version the service negotiates. */
export async function engineContainerList(host: string): Promise<() => Promise<ArrayBuffer>> {
  const target = parseDockerHost(host)
  const api = await dockerEngine(host).apiVersion()
  return () =>
    fetch(`${target.base}/v${api}/containers/json?all=1`, { unix: target.unix } as RequestInit).then((r) =>
      r.arrayBuffer(),
    )
}

export interface BenchService {
  url: string
  proc: ReturnType<typeof Bun.spawn>
  compiled: boolean
  stop(): Promise<void>
}

/** The compose CLI of a flavour, as scripts/test.sh sets it up: the current flavour's is the v2 plugin beside its engine. */
export function composeTools(flavour: Flavour): Record<string, string> {
  if (flavour !== "current") return {}
  const current = Bun.spawnSync(["bash", join(root, "scripts/current-engine.sh")])
    .stdout.toString()
    .trim()
  return { PATH: `${current}/usr/bin:${process.env.PATH}`, DOCKER_CONFIG: current }
}

/**
 * The service with `env`: `binary` when given, else BENCH_BINARY, else the one `bun run build` made, else the source;
 * with `dataDir` on that data directory (kept when it stops), else on a new one (removed).
 */
export async function startService(
  env: Record<string, string>,
  opts: { binary?: string; dataDir?: string } = {},
): Promise<BenchService> {
  const binary = opts.binary ?? process.env.BENCH_BINARY ?? join(root, "dist/harbormaster")
  const compiled = existsSync(binary)
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "hm-bench-data-"))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const proc = Bun.spawn(compiled ? [binary] : ["bun", join(root, "server.ts")], {
    cwd: dataDir,
    env: { ...process.env, SVC_ADDR: `127.0.0.1:${port}`, SVC_DATA: dataDir, ...env },
    stdout: "ignore",
    stderr: "inherit",
  })
  while (
    !(await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (proc.exitCode !== null) throw new Error("the service exited")
    await Bun.sleep(5)
  }
  return {
    url,
    proc,
    compiled,
    async stop() {
      proc.kill()
      await proc.exited
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

function run(cmd: string[], cwd = root): void {
  const done = Bun.spawnSync(cmd, { cwd, stdout: "ignore", stderr: "inherit" })
  if (done.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed`)
}

/**
 * The commit the budgets of the HTTP layer on Elysia are measured against (the service before it):
 * BENCH_BASELINE names another.
 */
export const BASELINE = process.env.BENCH_BASELINE ?? "039e8fa"

/** The compiled binary of this tree (scripts/build.ts), written into `dir`. */
export function binaryHere(dir: string): string {
  const out = join(dir, "harbormaster")
  run(["bun", join(root, "scripts/build.ts"), out])
  return out
}

/**
 * The compiled binary of `commit`, built as that commit builds itself (a git worktree of it with its
 * packages, its route manifest and its scripts/build.ts), written into `dir`.
 */
export function binaryAt(commit: string, dir: string): string {
  const tree = join(dir, `tree-${commit}`)
  const out = join(dir, `harbormaster-${commit}`)
  run(["git", "worktree", "add", "--detach", tree, commit])
  try {
    run(["bun", "install", "--frozen-lockfile"], tree)
    run(["bun", "scripts/routes.ts"], tree)
    run(["bun", "scripts/build.ts", out], tree)
  } finally {
    run(["git", "worktree", "remove", "--force", tree])
  }
  return out
}

export const ratio = (label: string, value: number, baseline: number, unit = "") =>
  console.log(
    `${label}: ${value.toFixed(2)}${unit} vs ${baseline.toFixed(2)}${unit} -> ratio ${(value / baseline).toFixed(2)}`,
  )
