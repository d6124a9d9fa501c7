// bench/events: the event stream's fan-out (issue 44). On a private engine of each flavour
// (BENCH_FLAVOURS), BENCH_CONTAINERS (50) containers are restarted every second for BENCH_SECONDS
// (20) while BENCH_CLIENTS (100) SSE clients read GET /api/events, against the same with one client.
// The readers run in child processes (BENCH_PROCS, 4), each stamping a chunk's arrival before it
// parses it; beside them, in a child of its own, the engine's own event stream read straight from its
// socket (what `docker events` reads), the baseline of completeness and of delay.
// Per phase: the events the engine emitted about the containers, and for every client whether it got
// each of them (id, action and time), all clients in one order, the service's; each event's delay
// (its arrival minus the engine's timestamp) p50 and p99 over all clients, against one client's
// (target: p99 at most 2x) and against the engine's own stream; the service's CPU per second of
// restarts, and what each client adds to it against one client's. The load average with each phase.
// Run as root: bun bench/events.ts (after `bun run build`, to measure the compiled binary); a quick
// check: BENCH_FLAVOURS=current BENCH_CONTAINERS=5 BENCH_CLIENTS=10 BENCH_SECONDS=3 bun bench/events.ts
import { loadavg } from "node:os"
import { dockerEngine, parseDockerHost } from "#lib/engine/client.ts"
import {
  benchFlavours,
  cpuSeconds,
  percentile,
  startEngine,
  startService,
  type BenchService,
  type Flavour,
} from "./support.ts"

const CONTAINERS = Number(process.env.BENCH_CONTAINERS ?? 50)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 100)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const PROCS = Number(process.env.BENCH_PROCS ?? 4)

/** One event as both streams tell it: the container, the action, the engine's time in ms; the service's number. */
type Seen = { key: string; delay: number; seq?: number }

/**
 * Child mode: `count` readers of `source` ("sse URL" or "engine HOST"); prints "ready" once each is
 * connected, and on a line "T0 T1 IDS" on stdin, each reader's events about the containers IDS
 * (comma-separated) stamped between T0 and T1 (ms), as one JSON line.
 */
async function readers(kind: string, source: string, count: number) {
  const now = () => performance.timeOrigin + performance.now()
  const seen: Seen[][] = Array.from({ length: count }, () => [])
  const decoder = () => new TextDecoder()
  const open = async (i: number) => {
    let res: Response
    if (kind === "sse") res = await fetch(`${source}/api/events`)
    else {
      const target = parseDockerHost(source)
      res = await fetch(`${target.base}/events?filters=${encodeURIComponent('{"type":["container"]}')}`, {
        unix: target.unix,
      } as RequestInit)
    }
    if (!res.ok || !res.body) throw new Error(`${kind}: HTTP ${res.status}`)
    const reader = res.body.getReader()
    const text = decoder()
    let rest = ""
    // The first chunk (the SSE stream's ": connected", or the engine's headers) says it is connected.
    const first = kind === "sse" ? await reader.read() : undefined
    if (first?.done) throw new Error("the stream ended at once")
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        const at = now()
        const lines = (rest + text.decode(value, { stream: true })).split("\n")
        rest = lines.pop()!
        for (const line of lines) {
          const json = kind === "sse" ? (line.startsWith("data: ") ? line.slice(6) : "") : line
          if (!json) continue
          const e = JSON.parse(json)
          const [id, action, ms] =
            kind === "sse"
              ? [e.id, e.action, Date.parse(e.time)]
              : [e.Actor?.ID ?? e.id, e.Action, Math.floor(e.timeNano / 1e6)]
          seen[i]!.push({ key: `${id} ${action} ${ms}`, delay: at - ms, seq: e.seq })
        }
      }
    })()
  }
  await Promise.all(Array.from({ length: count }, (_, i) => open(i)))
  console.log("ready")
  for await (const line of console) {
    const [t0, t1, ids] = line.split(" ")
    const ours = new Set(ids!.split(","))
    const within = (s: Seen) => {
      const [id, , ms] = s.key.split(" ")
      return ours.has(id!) && Number(ms) >= Number(t0) && Number(ms) <= Number(t1)
    }
    console.log(JSON.stringify(seen.map((events) => events.filter(within))))
    process.exit(0)
  }
}

if (process.argv[2] === "--readers") {
  await readers(process.argv[3]!, process.argv[4]!, Number(process.argv[5]))
  process.exit(0)
}

type Child = { proc: Bun.Subprocess<"pipe", "pipe", "inherit">; lines: AsyncIterator<string> }

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const text = new TextDecoder()
  let rest = ""
  for await (const chunk of stream) {
    const lines = (rest + text.decode(chunk, { stream: true })).split("\n")
    rest = lines.pop()!
    yield* lines
  }
}

async function spawnReaders(kind: string, source: string, count: number): Promise<Child> {
  const proc = Bun.spawn(["bun", import.meta.path, "--readers", kind, source, String(count)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  })
  const lines = linesOf(proc.stdout)[Symbol.asyncIterator]()
  const first = await lines.next()
  if (first.value !== "ready") throw new Error(`the readers did not start: ${first.value}`)
  return { proc, lines }
}

async function collect(child: Child, t0: number, t1: number, ids: string[]): Promise<Seen[][]> {
  child.proc.stdin.write(`${t0} ${t1} ${ids.join(",")}\n`)
  child.proc.stdin.flush()
  const line = await child.lines.next()
  await child.proc.exited
  return JSON.parse(line.value) as Seen[][]
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")
const ms = (x: number) => `${x.toFixed(1)} ms`

/** Restarts every container every second for SECONDS; the restarts asked and the seconds it took. */
async function restarts(host: string, ids: string[]): Promise<{ asked: number; seconds: number }> {
  const target = parseDockerHost(host)
  const t0 = performance.now()
  let asked = 0
  for (let s = 0; s < SECONDS; s++) {
    await Promise.all(
      ids.map(async (id) => {
        const res = await fetch(`${target.base}/containers/${id}/restart?t=0`, {
          method: "POST",
          unix: target.unix,
        } as RequestInit)
        if (!res.ok) throw new Error(`restart: HTTP ${res.status} ${await res.text()}`)
        asked++
      }),
    )
    const next = t0 + (s + 1) * 1000
    if (performance.now() < next) await Bun.sleep(next - performance.now())
  }
  return { asked, seconds: (performance.now() - t0) / 1000 }
}

interface Phase {
  clients: number
  emitted: number
  complete: number
  p50: number
  p99: number
  engineP50: number
  engineP99: number
  cpu: number
  restarts: string
  load: string
}

async function phase(svc: BenchService, host: string, ids: string[], clients: number): Promise<Phase> {
  const procs = Math.min(PROCS, clients)
  const engine = await spawnReaders("engine", host, 1)
  const children = await Promise.all(
    Array.from({ length: procs }, (_, i) =>
      spawnReaders("sse", svc.url, Math.floor(clients / procs) + (i < clients % procs ? 1 : 0)),
    ),
  )
  const t0 = Date.now()
  const c0 = cpuSeconds(svc.proc.pid)
  const driven = await restarts(host, ids)
  const t1 = Date.now()
  const cpu = ((cpuSeconds(svc.proc.pid) - c0) / driven.seconds) * 100
  await Bun.sleep(3000) // the last events reach every reader
  const [truth] = await collect(engine, t0, t1, ids)
  const got = (await Promise.all(children.map((c) => collect(c, t0, t1, ids)))).flat()
  // Events stamped in the same millisecond come in either order on two streams of the engine: every
  // client must hold the engine's events, and all of them in one order, the service's (seq rising).
  const sorted = (events: Seen[]) =>
    events
      .map((s) => s.key)
      .sort()
      .join("\n")
  const expected = sorted(truth!)
  const order = got[0]!.map((s) => s.key).join("\n")
  const complete = got.filter(
    (events) =>
      sorted(events) === expected &&
      events.map((s) => s.key).join("\n") === order &&
      events.every((s, i) => i === 0 || s.seq! > events[i - 1]!.seq!),
  ).length
  const delays = got.flatMap((events) => events.map((s) => s.delay))
  const engineDelays = truth!.map((s) => s.delay)
  return {
    clients,
    emitted: truth!.length,
    complete,
    p50: percentile(delays, 0.5),
    p99: percentile(delays, 0.99),
    engineP50: percentile(engineDelays, 0.5),
    engineP99: percentile(engineDelays, 0.99),
    cpu,
    restarts: `${driven.asked} in ${driven.seconds.toFixed(1)} s`,
    load: load(),
  }
}

async function measure(flavour: Flavour) {
  const engine = startEngine("events", flavour)
  const svc = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
  try {
    const docker = dockerEngine(engine.host)
    const ids: string[] = []
    for (let i = 0; i < CONTAINERS; i++) {
      const { Id } = await docker.createContainer(
        { Image: "svc-test/busybox:latest", Cmd: ["sleep", "1000000"], Labels: { "hm.bench": "1" } },
        `events-${i}`,
      )
      await docker.containerAction(Id, "start")
      ids.push(Id)
    }
    console.log(
      `\n== ${flavour}: service ${svc.compiled ? "compiled binary" : "bun server.ts"}, ${CONTAINERS} containers restarted every second for ${SECONDS} s`,
    )
    const one = await phase(svc, engine.host, ids, 1)
    const many = await phase(svc, engine.host, ids, CLIENTS)
    for (const p of [one, many])
      console.log(
        `[${flavour}] ${p.clients} client(s): ${p.emitted} engine events (restarts ${p.restarts}); ${p.complete} of ${p.clients} got every one in order; delay p50 ${ms(p.p50)}, p99 ${ms(p.p99)} (the engine's own stream: ${ms(p.engineP50)}, ${ms(p.engineP99)}); service CPU ${p.cpu.toFixed(1)} % of a core; load ${p.load}`,
      )
    console.log(
      `[${flavour}] ${CLIENTS} clients vs 1: p99 delay ${(many.p99 / one.p99).toFixed(2)}x (target 2), p50 ${(many.p50 / one.p50).toFixed(2)}x; vs the engine's own stream in the same phase: p99 ${(many.p99 / many.engineP99).toFixed(2)}x; CPU ${(many.cpu / one.cpu).toFixed(2)}x, each client beyond the first adds ${((many.cpu - one.cpu) / (CLIENTS - 1)).toFixed(2)} % of a core (one client's stream: ${one.cpu.toFixed(1)} %)`,
    )
  } finally {
    await svc.stop()
    engine.stop()
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
