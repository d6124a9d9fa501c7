// Container stats on the real engine of the flavour under test: a busy loop, an idle container and
// one holding 50 MiB, read by the service's sampler and by `docker stats --no-stream` side by side;
// a stopped container leaving the streams.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { cpus, loadavg } from "node:os"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"

let engine: Engine
let svc: Service
const ids: Record<string, string> = {}
const name = (n: string) => `hm-stats-${n}-${process.pid}`

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  ids.burn = await runContainer(engine, name("burn"), "while true; do :; done")
  ids.idle = await runContainer(engine, name("idle"), "sleep 3600")
  // tail holds the 50 MiB line it read; its output goes to a pipe nobody reads, so it stays.
  ids.mem = await runContainer(engine, name("mem"), "head -c 50m /dev/zero | tail | sleep 3600")
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_STATS_INTERVAL: "2" })
}, 60_000)

afterAll(async () => {
  await svc?.stop()
  await cleanup(engine)
})

const stats = async () => (await (await fetch(`${svc.url}/api/stats`)).json()) as any
const of = (r: any, key: string) => r.containers.find((c: any) => c.id === ids[key])

/** `docker stats --no-stream` for our three containers: CPU % and memory in bytes. */
async function dockerStats(): Promise<Record<string, { cpu: number; mem: number }>> {
  const proc = Bun.spawn(
    [
      "docker",
      "stats",
      "--no-stream",
      "--format",
      "{{.ID}} {{.CPUPerc}} {{.MemUsage}}",
      ids.burn!,
      ids.idle!,
      ids.mem!,
    ],
    { env: { ...process.env, DOCKER_HOST: engineHost() }, stdout: "pipe", stderr: "pipe" },
  )
  const text = await new Response(proc.stdout).text()
  expect(await proc.exited).toBe(0)
  const units: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, kB: 1e3, MB: 1e6, GB: 1e9 }
  const out: Record<string, { cpu: number; mem: number }> = {}
  for (const line of text.trim().split("\n")) {
    const [id, cpu, mem] = line.split(" ")
    const m = /^([\d.]+)([A-Za-z]+)$/.exec(mem!)!
    const key = Object.keys(ids).find((k) => ids[k]!.startsWith(id!))!
    out[key] = { cpu: Number(cpu!.replace("%", "")), mem: Number(m[1]) * units[m[2]!]! }
  }
  return out
}

test("a busy loop near one core, an idle container near 0, memory of 50 MiB held; as docker stats sees them", async () => {
  // Two rounds after start, every container has a CPU figure.
  let r: any
  for (let i = 0; i < 40; i++) {
    r = await stats()
    if (of(r, "burn")?.cpu_percent != null && of(r, "mem")?.memory_bytes > 50 * 2 ** 20) break
    await Bun.sleep(500)
  }
  expect(r.host.cpus).toBe(cpus().length)
  expect(of(r, "idle").cpu_percent).toBeLessThan(2)
  expect(of(r, "mem").memory_bytes).toBeGreaterThan(50 * 2 ** 20)
  expect(of(r, "mem").memory_bytes).toBeLessThan(60 * 2 ** 20)
  expect(of(r, "idle").memory_bytes).toBeLessThan(5 * 2 ** 20)
  // A busy loop takes one core when the machine has one to spare; on a loaded machine it gets its share.
  const saturated = loadavg()[0]! > cpus().length - 1
  if (!saturated) expect(of(r, "burn").cpu_percent).toBeGreaterThan(90)
  expect(of(r, "burn").cpu_percent).toBeLessThan(105)
  expect(of(r, "burn").cpu_percent).toBeGreaterThan(10 * Math.max(0.5, of(r, "idle").cpu_percent))

  // Side by side with docker stats. The two read different windows (ours one interval, the CLI's
  // about one second), and a busy loop's share of a machine that runs a test suite moves by many
  // points from one window to the next. Each of our rounds is bracketed by a CLI run before and
  // after it; the median of our five rounds must fall within 10 points of the range the CLI's ten
  // runs span (the arithmetic itself is pinned exactly by the unit tests on recorded payloads of
  // both engines), and the idle container within 2 points of the CLI in every round.
  const slack = 10
  const stream = sseMessages(await fetch(`${svc.url}/api/stats/stream`))
  const report: string[] = []
  const ourBurn: number[] = []
  const cliBurn: number[] = []
  for (let i = 0; i < 5; i++) {
    const before = await dockerStats()
    let ours = (await stream.next()).value
    while (!of(ours, "burn") || Date.parse(ours.time) < Date.now() - 1500) ours = (await stream.next()).value
    const after = await dockerStats()
    const cpu = of(ours, "burn").cpu_percent
    ourBurn.push(cpu)
    cliBurn.push(before.burn!.cpu, after.burn!.cpu)
    report.push(
      `${cpu.toFixed(1)} in [${Math.min(before.burn!.cpu, after.burn!.cpu).toFixed(1)}, ${Math.max(before.burn!.cpu, after.burn!.cpu).toFixed(1)}]`,
    )
    expect(Math.abs(of(ours, "idle").cpu_percent - after.idle!.cpu)).toBeLessThanOrEqual(2)
    for (const k of ["burn", "idle", "mem"]) {
      // Bracketed as the CPU is: a container's memory moves by pages between reads (a shell's few
      // hundred KiB, the kernel's accounting of its page cache). docker stats prints three
      // significant digits (50.3MiB), small figures in KiB.
      const a = of(ours, k).memory_bytes
      const [lo, hi] = [Math.min(before[k]!.mem, after[k]!.mem), Math.max(before[k]!.mem, after[k]!.mem)]
      const tolerance = Math.max(0.02 * hi, 256 * 1024)
      expect(a).toBeGreaterThanOrEqual(lo - tolerance)
      expect(a).toBeLessThanOrEqual(hi + tolerance)
    }
  }
  await stream.return(undefined)
  const median = ourBurn.sort((a, b) => a - b)[2]!
  expect(median).toBeGreaterThanOrEqual(Math.min(...cliBurn) - slack)
  expect(median).toBeLessThanOrEqual(Math.max(...cliBurn) + slack)
  console.log(
    `[${process.env.TEST_FLAVOUR}] burn CPU %, service in [docker stats before, after]: ${report.join("; ")} (load ${loadavg()[0]!.toFixed(1)})`,
  )
}, 90_000)

test("a stopped container leaves the stream; its own stream says running: false", async () => {
  const all = sseMessages(await fetch(`${svc.url}/api/stats/stream`))
  const mine = sseMessages(await fetch(`${svc.url}/api/containers/${ids.idle}/stats/stream`))
  expect((await all.next()).value.containers.some((c: any) => c.id === ids.idle)).toBe(true)
  expect((await mine.next()).value).toMatchObject({ id: ids.idle, name: name("idle") })
  await engine.containerAction(ids.idle!, "stop")
  let left = false
  for (let i = 0; i < 10 && !left; i++) left = !(await all.next()).value.containers.some((c: any) => c.id === ids.idle)
  expect(left).toBe(true)
  let m = (await mine.next()).value
  while (m.running !== false) m = (await mine.next()).value
  expect(m).toEqual({ id: ids.idle, time: expect.any(String), running: false })
  await all.return(undefined)
  await mine.return(undefined)
  // Its last hour stays readable.
  const h = await (await fetch(`${svc.url}/api/containers/${ids.idle}/stats?history=true`)).json()
  expect(h).toMatchObject({ running: false, latest: null })
  expect(h.history.time.length).toBeGreaterThan(2)
}, 60_000)
