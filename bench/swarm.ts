// bench/swarm: GET /api/swarm/services with 50 services of 3 replicas on a swarm of three private
// engines (scripts/swarm.sh), against the engine's own GET /services?status=true and GET /tasks (asked
// together, as the service asks them) in the same run, on each engine flavour (BENCH_FLAVOURS)
// (target: at most 1.5x).
// Run as root: bun bench/swarm.ts (after `bun run build`, to measure the compiled binary).
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine, parseDockerHost } from "#lib/engine/client.ts"
import { benchFlavours, median, ratio, root, startService, type BenchService, type Flavour } from "./support.ts"

const SERVICES = 50
const REPLICAS = 3
const ITERATIONS = 60

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

/** A swarm of three engines; its manager's DOCKER_HOST and the registry's address. */
function startSwarm(flavour: Flavour): { manager: string; registry: string; stop(): void } {
  const dir = mkdtempSync(join(tmpdir(), "hm-bench-swarm-"))
  const started = Bun.spawnSync(["bash", join(root, "scripts/swarm.sh"), "start", dir, flavour], { stderr: "inherit" })
  if (started.exitCode !== 0) throw new Error("the test swarm did not start")
  const vars = Object.fromEntries(
    started.stdout
      .toString()
      .trim()
      .split("\n")
      .map((l) => l.split("=", 2) as [string, string]),
  )
  return {
    manager: vars.TEST_SWARM_MANAGER!,
    registry: vars.TEST_SWARM_REGISTRY!,
    stop: () => void Bun.spawnSync(["bash", join(root, "scripts/swarm.sh"), "stop", dir]),
  }
}

async function measure(flavour: Flavour) {
  const swarm = startSwarm(flavour)
  let svc: BenchService | undefined
  try {
    const docker = dockerEngine(swarm.manager)
    console.log(`\n== ${flavour} swarm: creating ${SERVICES} services of ${REPLICAS} replicas on ${swarm.manager}`)
    for (let n = 0; n < SERVICES; n++)
      await docker.createService({
        Name: `bench-${n}`,
        Labels: { "com.docker.stack.namespace": `stack${n % 5}` },
        TaskTemplate: {
          ContainerSpec: {
            Image: `${swarm.registry}/svc-test/busybox:latest`,
            Command: ["sleep", "3600"],
            StopGracePeriod: 1e9,
          },
        },
        Mode: { Replicated: { Replicas: REPLICAS } },
        EndpointSpec: { Mode: "dnsrr" },
      })
    const t0 = performance.now()
    for (;;) {
      const running = (await docker.listServices()).reduce((n, s) => n + (s.ServiceStatus?.RunningTasks ?? 0), 0)
      if (running === SERVICES * REPLICAS) break
      if (performance.now() - t0 > 300_000)
        throw new Error(`only ${running} of ${SERVICES * REPLICAS} tasks run after 5 minutes`)
      await Bun.sleep(1000)
    }
    console.log(`${SERVICES * REPLICAS} tasks running after ${((performance.now() - t0) / 1000).toFixed(1)} s`)

    svc = await startService({ DOCKER_HOST: swarm.manager })
    const target = parseDockerHost(swarm.manager)
    const api = await docker.apiVersion()
    const get = (path: string) =>
      fetch(`${target.base}/v${api}${path}`, { unix: target.unix } as RequestInit).then((r) => r.arrayBuffer())
    const filters = encodeURIComponent(JSON.stringify({ "desired-state": ["running"] }))
    const engineLists = () => Promise.all([get("/services?status=true"), get(`/tasks?filters=${filters}`)])
    const list = () =>
      fetch(`${svc!.url}/api/swarm/services`).then((r) =>
        r.ok ? r.arrayBuffer() : Promise.reject(new Error(`services answered ${r.status}`)),
      )
    const listed = (await (await fetch(`${svc.url}/api/swarm/services`)).json()) as { replicas: { running: number } }[]
    if (listed.length !== SERVICES || listed.some((s) => s.replicas.running !== REPLICAS))
      throw new Error("the service list does not show every service with its replicas running")
    for (let i = 0; i < 5; i++) await Promise.all([engineLists(), list()])
    const base: number[] = []
    const ours: number[] = []
    for (let i = 0; i < ITERATIONS; i++) {
      base.push(await timed(engineLists))
      ours.push(await timed(list))
    }
    console.log(
      `service: ${svc.compiled ? "compiled binary" : "bun server.ts (no dist/harbormaster; `bun run build` first)"}; API ${api}; medians of ${ITERATIONS}`,
    )
    ratio(
      `[${flavour}] GET /api/swarm/services vs the engine's GET /services + GET /tasks (target <= 1.5)`,
      median(ours),
      median(base),
      " ms",
    )
  } finally {
    await svc?.stop()
    swarm.stop()
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
