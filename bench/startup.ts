// bench/startup: the compiled binary against a compiled Bun hello server, both built in this run with
// the same flags (scripts/build.ts's): the time from spawning to the first 200 from /api/health, and
// the RSS once idle (3 s after that answer). The service starts against a private engine with a
// fresh data directory each round (its first start: it writes its identity, synced to disk), then
// again on that directory (a restart, as after an upgrade or a reboot). Targets: start-up at most 2x
// the hello server's, idle RSS at most 1.4x. Run as root: bun bench/startup.ts [rounds]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../tests/support/service.ts"
import { median, ratio, root, rssMiB, startEngine } from "./support.ts"

const ROUNDS = Number(process.argv[2] ?? 7)
const dir = mkdtempSync(join(tmpdir(), "hm-bench-startup-"))

function compile(args: string[]): void {
  const built = Bun.spawnSync(["bun", ...args], { cwd: root, stdout: "ignore", stderr: "inherit" })
  if (built.exitCode !== 0) throw new Error(`bun ${args.join(" ")} failed`)
}

const service = join(dir, "harbormaster")
compile([join(root, "scripts/build.ts"), service])
/** A hello server from `source`, compiled as scripts/build.ts compiles the service. */
function helloServer(name: string, source: string): string {
  writeFileSync(join(dir, `${name}.ts`), source)
  compile(["build", "--compile", "--splitting", "--minify", "--bytecode", "--format=esm", "--outfile", join(dir, name), join(dir, `${name}.ts`)])
  return join(dir, name)
}
const hello = helloServer("hello", `Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), fetch: () => Response.json({ status: "ok" }) })\n`)

/** Milliseconds from spawn to the first 200 of /api/health, and the RSS in MiB once idle; `data` is the data directory. */
async function measure(binary: string, env: Record<string, string>, data: string): Promise<{ ms: number; rss: number }> {
  const port = await freePort()
  const started = performance.now()
  const proc = Bun.spawn([binary], { cwd: data, env: { ...process.env, ...env, PORT: String(port), SVC_ADDR: `127.0.0.1:${port}`, SVC_DATA: data }, stdout: "ignore", stderr: "inherit" })
  try {
    while (!(await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false))) {
      if (proc.exitCode !== null) throw new Error(`${binary} exited ${proc.exitCode}`)
      await Bun.sleep(1)
    }
    const ms = performance.now() - started
    await Bun.sleep(3000)
    return { ms, rss: rssMiB(proc.pid) }
  } finally {
    proc.kill()
    await proc.exited
  }
}

const engine = startEngine("startup")
try {
  const runs = { service: [] as { ms: number; rss: number }[], restart: [] as { ms: number; rss: number }[], hello: [] as { ms: number; rss: number }[] }
  for (let i = 0; i < ROUNDS; i++) {
    const data = mkdtempSync(join(dir, "data-"))
    runs.hello.push(await measure(hello, {}, data))
    runs.service.push(await measure(service, { DOCKER_HOST: engine.host }, data))
    runs.restart.push(await measure(service, { DOCKER_HOST: engine.host }, data))
    rmSync(data, { recursive: true, force: true })
  }
  const of = (k: keyof typeof runs, f: "ms" | "rss") => median(runs[k].map((r) => r[f]))
  console.log(`medians of ${ROUNDS} rounds, each running the hello server, the service's first start and its restart in turn`)
  ratio("start-up to the first /api/health, service vs hello (target <= 2)", of("service", "ms"), of("hello", "ms"), " ms")
  ratio("restart to the first /api/health, service vs hello", of("restart", "ms"), of("hello", "ms"), " ms")
  ratio("idle RSS, service vs hello (target <= 1.4)", of("service", "rss"), of("hello", "rss"), " MiB")
  console.log(`load average: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`)
} finally {
  engine.stop()
  rmSync(dir, { recursive: true, force: true })
}
