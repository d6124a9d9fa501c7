// bench/startup: the compiled binary against the binary of the commit before the HTTP layer moved to
// Elysia (BASELINE in support.ts, built from a git worktree of it in this run), and against a
// compiled Bun hello server built with the same flags (scripts/build.ts's): the time from spawning to
// the first 200 from /api/health, and the RSS once idle (3 s after that answer). The service starts
// against a private engine with a fresh data directory each round (its first start: it writes its
// identity, synced to disk), then again on that directory (a restart, as after an upgrade or a
// reboot). Targets, against the baseline: start-up at most 1.5x, idle RSS at most 1.25x.
// A second baseline, the floor, is a compiled Bun server doing only what the idle service cannot
// leave out: it asks the engine what /api/health reports (GET /version and /info, begun at launch)
// and answers with it, serves the bundled UI page, holds the engine's event stream, and writes its
// identity into the data directory through node:fs (the data directory's atomic writes need file
// descriptors). The service's ratios to it say what its own code costs; the hello server's ratios
// include the engine's own answer time. A third, the engine's answer, is the hello server answering
// once the engine answered one GET /info (where health's swarm comes from): the least any health that
// reports the engine can take. Run as root: bun bench/startup.ts [rounds]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../tests/support/service.ts"
import { BASELINE, binaryAt, binaryHere, cpuMs, median, ratio, root, rssMiB, startEngine } from "./support.ts"

const ROUNDS = Number(process.argv[2] ?? 7)
const dir = mkdtempSync(join(tmpdir(), "hm-bench-startup-"))

function compile(args: string[]): void {
  const built = Bun.spawnSync(["bun", ...args], { cwd: root, stdout: "ignore", stderr: "inherit" })
  if (built.exitCode !== 0) throw new Error(`bun ${args.join(" ")} failed`)
}

const service = binaryHere(dir)
const baseline = binaryAt(BASELINE, dir)
/** A hello server from `source`, compiled as scripts/build.ts compiles the service. */
function helloServer(name: string, source: string): string {
  writeFileSync(join(dir, `${name}.ts`), source)
  compile([
    "build",
    "--compile",
    "--splitting",
    "--minify",
    "--bytecode",
    "--format=esm",
    "--outfile",
    join(dir, name),
    join(dir, `${name}.ts`),
  ])
  return join(dir, name)
}
const hello = helloServer(
  "hello",
  `Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), fetch: () => Response.json({ status: "ok" }) })\n`,
)
const answer = helloServer(
  "answer",
  `const info = fetch("http://engine/info", { unix: process.env.DOCKER_HOST!.replace("unix://", "") } as RequestInit).then((r) => r.json())
Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), fetch: async () => Response.json({ status: "ok", swarm: (await info).Swarm }) })
`,
)
const floor = helloServer(
  "floor",
  `import { writeFileSync } from "node:fs"
import index from ${JSON.stringify(join(root, "ui/index.html"))}
const base = "http://engine", unix = process.env.DOCKER_HOST!.replace("unix://", "")
const ask = (path: string) => fetch(base + path, { unix } as RequestInit)
const health = Promise.all(["/version", "/info"].map((path) => ask(path).then((r) => r.json())))
writeFileSync(process.env.SVC_DATA + "/server.json", JSON.stringify({ server_id: crypto.randomUUID() }))
Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), routes: { "/": index }, fetch: async () => Response.json({ status: "ok", engine: await health }), development: false })
const events = (await ask("/events")).body!.getReader()
while (!(await events.read()).done);
`,
)

/**
 * Milliseconds from spawn to the first 200 of /api/health, the CPU milliseconds its threads ran until
 * then (what the start costs, less moved by other work on a shared machine than the time), and the RSS
 * in MiB once idle; `data` is the data directory.
 */
async function measure(
  binary: string,
  env: Record<string, string>,
  data: string,
): Promise<{ ms: number; cpu: number; rss: number }> {
  const port = await freePort()
  const started = performance.now()
  const proc = Bun.spawn([binary], {
    cwd: data,
    env: { ...process.env, ...env, PORT: String(port), SVC_ADDR: `127.0.0.1:${port}`, SVC_DATA: data },
    stdout: "ignore",
    stderr: "inherit",
  })
  try {
    while (
      !(await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (proc.exitCode !== null) throw new Error(`${binary} exited ${proc.exitCode}`)
      await Bun.sleep(1)
    }
    const ms = performance.now() - started
    const cpu = cpuMs(proc.pid)
    await Bun.sleep(3000)
    return { ms, cpu, rss: rssMiB(proc.pid) }
  } finally {
    proc.kill()
    await proc.exited
  }
}

const engine = startEngine("startup")
try {
  type Run = { ms: number; cpu: number; rss: number }
  const runs = {
    service: [] as Run[],
    restart: [] as Run[],
    baseline: [] as Run[],
    hello: [] as Run[],
    answer: [] as Run[],
    floor: [] as Run[],
  }
  for (let i = 0; i < ROUNDS; i++) {
    const data = mkdtempSync(join(dir, "data-"))
    runs.hello.push(await measure(hello, {}, data))
    runs.answer.push(await measure(answer, { DOCKER_HOST: engine.host }, data))
    runs.floor.push(await measure(floor, { DOCKER_HOST: engine.host }, data))
    const before = mkdtempSync(join(dir, "data-"))
    runs.baseline.push(await measure(baseline, { DOCKER_HOST: engine.host }, before))
    rmSync(before, { recursive: true, force: true })
    runs.service.push(await measure(service, { DOCKER_HOST: engine.host }, data))
    runs.restart.push(await measure(service, { DOCKER_HOST: engine.host }, data))
    rmSync(data, { recursive: true, force: true })
  }
  const of = (k: keyof typeof runs, f: keyof Run) => median(runs[k].map((r) => r[f]))
  console.log(
    `medians of ${ROUNDS} rounds, each running the hello server, the engine's answer, the floor, ${BASELINE}'s first start, the service's first start and its restart in turn`,
  )
  ratio(
    `start-up to the first /api/health, service vs ${BASELINE} (target <= 1.5)`,
    of("service", "ms"),
    of("baseline", "ms"),
    " ms",
  )
  ratio(`CPU time to the first /api/health, service vs ${BASELINE}`, of("service", "cpu"), of("baseline", "cpu"), " ms")
  ratio(`idle RSS, service vs ${BASELINE} (target <= 1.25)`, of("service", "rss"), of("baseline", "rss"), " MiB")
  ratio("start-up to the first /api/health, service vs hello", of("service", "ms"), of("hello", "ms"), " ms")
  ratio("restart to the first /api/health, service vs hello", of("restart", "ms"), of("hello", "ms"), " ms")
  ratio("idle RSS, service vs hello", of("service", "rss"), of("hello", "rss"), " MiB")
  ratio(
    "start-up, the engine's answer vs hello (the least a health reporting the engine takes)",
    of("answer", "ms"),
    of("hello", "ms"),
    " ms",
  )
  ratio(
    "start-up, floor vs hello (the engine's own answer and the runtime's parts)",
    of("floor", "ms"),
    of("hello", "ms"),
    " ms",
  )
  ratio("idle RSS, floor vs hello", of("floor", "rss"), of("hello", "rss"), " MiB")
  ratio("start-up, service vs floor", of("service", "ms"), of("floor", "ms"), " ms")
  ratio("idle RSS, service vs floor", of("service", "rss"), of("floor", "rss"), " MiB")
  console.log(`load average: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`)
} finally {
  engine.stop()
  rmSync(dir, { recursive: true, force: true })
}
