// bench/stats: 200 running containers on a private engine, sampled every 5 s by the service with
// stats history on, against the same service with stats off (SVC_STATS_HISTORY=off and nobody
// listening: the sampler sleeps), both running side by side for the same minutes. Targets: added
// CPU below 3 % of one core, added RSS with an hour of history below 20 MiB. The rings are written
// in full when created (lib/stats/history.ts), so the hour's memory is resident after the first round.
// Run as root: bun bench/stats.ts (after `bun run build`, to measure the compiled binary).
import { readFileSync } from "node:fs"
import { dockerEngine } from "#lib/engine/client.ts"
import { benchFlavours, ratio, rssMiB, startEngine, startService, type BenchService, type Flavour } from "./support.ts"

const CONTAINERS = Number(process.env.BENCH_CONTAINERS ?? 200)
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 120)
const TICK = 100 // USER_HZ

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / TICK
}

async function measure(flavour: Flavour) {
  const engine = startEngine("stats", flavour)
  let on: BenchService | undefined
  let off: BenchService | undefined
  try {
    const docker = dockerEngine(engine.host)
    console.log(`\n== ${flavour} engine: starting ${CONTAINERS} containers on ${engine.host}`)
    for (let batch = 0; batch < CONTAINERS; batch += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, CONTAINERS - batch) }, async (_, i) => {
          const n = batch + i
          const labels = {
            "hm.bench": "1",
            "com.docker.compose.project": `p${n % 7}`,
            "com.docker.compose.service": `s${n}`,
          }
          const { Id } = await docker.createContainer(
            { Image: "svc-test/busybox:latest", Cmd: ["sleep", "3600"], Labels: labels },
            `stats-${n}`,
          )
          await docker.containerAction(Id, "start")
        }),
      )
    }
    off = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
    on = await startService({ DOCKER_HOST: engine.host, SVC_STATS_INTERVAL: "5" })
    // Until the service with stats has sampled every container twice.
    for (;;) {
      const r = (await (await fetch(`${on.url}/api/stats`)).json()) as any
      if (r.containers.length === CONTAINERS && r.containers.every((c: any) => c.cpu_percent !== null)) break
      await Bun.sleep(1000)
    }
    const t0 = performance.now()
    const cpu0 = { on: cpuSeconds(on.proc.pid), off: cpuSeconds(off.proc.pid) }
    await Bun.sleep(WINDOW_S * 1000)
    const seconds = (performance.now() - t0) / 1000
    const cpu = {
      on: (cpuSeconds(on.proc.pid) - cpu0.on) / seconds,
      off: (cpuSeconds(off.proc.pid) - cpu0.off) / seconds,
    }
    const rss = { on: rssMiB(on.proc.pid), off: rssMiB(off.proc.pid) }
    const r = (await (await fetch(`${on.url}/api/stats?history=true`)).json()) as any
    const slots = r.containers[0].history.time.length

    console.log(
      `service: ${on.compiled ? "compiled binary" : "bun server.ts"}; ${CONTAINERS} containers, 7 stacks, ${WINDOW_S} s window (${Math.round(WINDOW_S / 5)} rounds), ${slots} slots sampled per container so far`,
    )
    console.log(
      `[${flavour}] CPU, share of one core: stats on ${(cpu.on * 100).toFixed(2)} %, stats off ${(cpu.off * 100).toFixed(2)} %`,
    )
    ratio(`[${flavour}] added CPU (% of one core) vs the 3 % target`, (cpu.on - cpu.off) * 100, 3, " %")
    console.log(`[${flavour}] RSS: stats on ${rss.on.toFixed(1)} MiB, stats off ${rss.off.toFixed(1)} MiB`)
    ratio(`[${flavour}] added RSS with an hour of history vs the 20 MiB target`, rss.on - rss.off, 20, " MiB")
    ratio(`[${flavour}] RSS stats on vs stats off`, rss.on, rss.off, " MiB")
  } finally {
    await on?.stop()
    await off?.stop()
    engine.stop()
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
