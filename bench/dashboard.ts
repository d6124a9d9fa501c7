// bench/dashboard: 200 real containers on a private engine; GET /api/dashboard (the summary and its
// health: stacks by health, updates, CVEs, nodes, swarm, backups, the host's hour) against the engine
// calls it needs, made straight to the engine at once in the same run (target: at most 1.5x): the
// container, image, volume and network lists and GET /info (the engine's version and disk use are
// reused for 30 s by the service, so neither side asks for them per round; on a swarm manager the
// service lists and tasks would join them). Also the same answer against the container list alone
// (the target before the health: 1.3x), the service's startup time to the first /api/health (target:
// under 100 ms) and its idle RSS (target: under 60 MiB), on each engine flavour (BENCH_FLAVOURS).
// Run as root: bun bench/dashboard.ts (after `bun run build`, to measure the compiled binary).
import { dockerEngine } from "#lib/engine/client.ts"
import { parseDockerHost } from "#lib/engine/client.ts"
import {
  benchFlavours,
  engineContainerList,
  median,
  ratio,
  rssMiB,
  startEngine,
  startService,
  type BenchService,
  type Flavour,
} from "./support.ts"

const CONTAINERS = 200
const RUNNING = 40
const ITERATIONS = 60

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

/** The engine calls one dashboard needs, made at once, their bodies read. */
async function engineCalls(host: string, paths: string[]): Promise<() => Promise<unknown>> {
  const target = parseDockerHost(host)
  const api = await dockerEngine(host).apiVersion()
  return () =>
    Promise.all(
      paths.map((p) =>
        fetch(`${target.base}/v${api}${p}`, { unix: target.unix } as RequestInit).then((r) => r.arrayBuffer()),
      ),
    )
}

const NEEDED = ["/containers/json?all=1", "/images/json", "/volumes", "/networks", "/info"]

async function measure(flavour: Flavour) {
  const engine = startEngine("dash", flavour)
  let svc: BenchService | undefined
  try {
    const docker = dockerEngine(engine.host)
    console.log(`\n== ${flavour} engine: creating ${CONTAINERS} containers (${RUNNING} running) on ${engine.host}`)
    for (let batch = 0; batch < CONTAINERS; batch += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const n = batch + i
          const labels = {
            "hm.bench": "1",
            "com.docker.compose.project": `p${n % 7}`,
            "com.docker.compose.service": `s${n}`,
          }
          const { Id } = await docker.createContainer(
            { Image: "svc-test/busybox:latest", Cmd: ["sleep", "3600"], Labels: labels },
            `bench-${n}`,
          )
          if (n < RUNNING) await docker.containerAction(Id, "start")
        }),
      )
    }

    const startup = await timed(async () => (svc = await startService({ DOCKER_HOST: engine.host })))
    await Bun.sleep(1000)
    const idleRss = rssMiB(svc!.proc.pid)

    const engineList = await engineContainerList(engine.host)
    const needed = await engineCalls(engine.host, NEEDED)
    const dashboard = () =>
      fetch(`${svc!.url}/api/dashboard`).then((r) =>
        r.ok ? r.arrayBuffer() : Promise.reject(new Error(`dashboard answered ${r.status}`)),
      )
    const answer = await (await fetch(`${svc!.url}/api/dashboard`)).json()
    if (answer.container_states.total !== CONTAINERS)
      throw new Error(`the dashboard counted ${answer.container_states.total} containers, not ${CONTAINERS}`)
    if (answer.health.stacks.items.length !== 7 || answer.health.errors.length)
      throw new Error(
        `the dashboard's health: ${JSON.stringify(answer.health.stacks.counts)}, errors ${JSON.stringify(answer.health.errors)}`,
      )
    for (let i = 0; i < 5; i++) await Promise.all([engineList(), needed(), dashboard()])
    const list: number[] = []
    const calls: number[] = []
    const ours: number[] = []
    for (let i = 0; i < ITERATIONS; i++) {
      list.push(await timed(engineList))
      calls.push(await timed(needed))
      ours.push(await timed(dashboard))
    }

    console.log(
      `service: ${svc!.compiled ? "compiled binary" : "bun server.ts (no dist/harbormaster; `bun run build` first)"}; API ${await docker.apiVersion()}; medians of ${ITERATIONS}`,
    )
    ratio(
      `[${flavour}] GET /api/dashboard vs the engine calls it needs, at once (${NEEDED.join(", ")}) (target <= 1.5)`,
      median(ours),
      median(calls),
      " ms",
    )
    ratio(
      `[${flavour}] GET /api/dashboard vs the engine's GET /containers/json?all=1 alone (the target before the health: <= 1.3)`,
      median(ours),
      median(list),
      " ms",
    )
    ratio(`[${flavour}] startup to the first /api/health vs the 100 ms target`, startup, 100, " ms")
    ratio(`[${flavour}] idle RSS vs the 60 MiB target`, idleRss, 60, " MiB")
    console.log(`[${flavour}] RSS after the run: ${rssMiB(svc!.proc.pid).toFixed(1)} MiB`)
  } finally {
    await svc?.stop()
    engine.stop()
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
