// bench/dashboard: 200 real containers on a private engine; GET /api/dashboard against the engine's
// own GET /containers/json?all=1 in the same run, on each engine flavour (BENCH_FLAVOURS) (target: at most 1.3x), and the service's startup
// time to the first /api/health (target: under 100 ms) and idle RSS (target: under 60 MiB).
// Run as root: bun bench/dashboard.ts (after `bun run build`, to measure the compiled binary).
import { dockerEngine } from "#lib/engine/client.ts"
import { benchFlavours, engineContainerList, median, ratio, rssMiB, startEngine, startService, type BenchService, type Flavour } from "./support.ts"

const CONTAINERS = 200
const RUNNING = 40
const ITERATIONS = 60

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

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
          const labels = { "hm.bench": "1", "com.docker.compose.project": `p${n % 7}`, "com.docker.compose.service": `s${n}` }
          const { Id } = await docker.createContainer({ Image: "svc-test/busybox:latest", Cmd: ["sleep", "3600"], Labels: labels }, `bench-${n}`)
          if (n < RUNNING) await docker.containerAction(Id, "start")
        }),
      )
    }

    const startup = await timed(async () => (svc = await startService({ DOCKER_HOST: engine.host })))
    await Bun.sleep(1000)
    const idleRss = rssMiB(svc!.proc.pid)

    const engineList = await engineContainerList(engine.host)
    const dashboard = () => fetch(`${svc!.url}/api/dashboard`).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`dashboard answered ${r.status}`))))
    const counted = (await (await fetch(`${svc!.url}/api/dashboard`)).json()).container_states.total
    if (counted !== CONTAINERS) throw new Error(`the dashboard counted ${counted} containers, not ${CONTAINERS}`)
    for (let i = 0; i < 5; i++) await Promise.all([engineList(), dashboard()])
    const base: number[] = []
    const ours: number[] = []
    for (let i = 0; i < ITERATIONS; i++) {
      base.push(await timed(engineList))
      ours.push(await timed(dashboard))
    }

    console.log(`service: ${svc!.compiled ? "compiled binary" : "bun server.ts (no dist/harbormaster; `bun run build` first)"}; API ${await docker.apiVersion()}; medians of ${ITERATIONS}`)
    ratio(`[${flavour}] GET /api/dashboard vs the engine's GET /containers/json?all=1 (target <= 1.3)`, median(ours), median(base), " ms")
    ratio(`[${flavour}] startup to the first /api/health vs the 100 ms target`, startup, 100, " ms")
    ratio(`[${flavour}] idle RSS vs the 60 MiB target`, idleRss, 60, " MiB")
    console.log(`[${flavour}] RSS after the run: ${rssMiB(svc!.proc.pid).toFixed(1)} MiB`)
  } finally {
    await svc?.stop()
    engine.stop()
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
