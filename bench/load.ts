// bench/load: a mixed load on loopback for a bounded time against a private engine: API reads,
// events and stack-logs SSE subscribers, WebSocket shells and stack actions, driven against this
// tree's compiled binary and against the binary of the commit before the HTTP layer moved to Elysia
// (BASELINE in support.ts), both built in this run. Each gets the whole time in two halves, in the
// order baseline, service, service, baseline, so that the machine's own drift weighs on both alike.
// Every interval it prints requests per second, p50/p99 latency, errors and the service's RSS; at the
// end, the service's p50 and p99 as ratios to the baseline's (targets: at most 1.1, no errors), each
// half's RSS of the last interval as a ratio to the first (flat memory: close to 1.0) and the
// dashboard's p50 as a ratio to the engine's own container list in the same run.
// Run as root: bun bench/load.ts [seconds=600] [interval=60]
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  BASELINE,
  binaryAt,
  binaryHere,
  engineContainerList,
  median,
  percentile,
  ratio,
  rssMiB,
  startEngine,
  startService,
} from "./support.ts"

const SECONDS = Number(process.argv[2] ?? 600)
const INTERVAL = Number(process.argv[3] ?? 60)
const READERS = 8
const EVENT_SUBSCRIBERS = 20
const LOG_SUBSCRIBERS = 5
const SHELLS = 3

const COMPOSE = `services:
  chatty:
    image: svc-test/busybox:latest
    command: ["sh", "-c", "i=0; while true; do i=$$((i+1)); echo line $$i; sleep 0.2; done"]
  quiet:
    image: svc-test/busybox:latest
    command: ["sleep", "100000"]
`
const READS = [
  "/api/dashboard",
  "/api/containers?all=true",
  "/api/stacks",
  "/api/stacks/load",
  "/api/images",
  "/api/volumes",
  "/api/networks",
  "/api/events/history",
]

/** What one run measured. */
interface Run {
  latencies: number[]
  requests: number
  failures: Map<string, number>
  rss: number[]
  dashboard: number[]
  direct: number[]
}

/** The load for `seconds` against `binary` (named `label` in what it prints), on `engine`. */
async function drive(binary: string, label: string, engine: { host: string }, seconds: number): Promise<Run> {
  const service = await startService({ DOCKER_HOST: engine.host }, { binary })
  const deadline = Date.now() + seconds * 1000
  const running = () => Date.now() < deadline
  void service.proc.exited.then(
    () =>
      running() &&
      console.error(
        `the service exited during the run: code ${service.proc.exitCode}, signal ${service.proc.signalCode}`,
      ),
  )
  const run: Run = { latencies: [], requests: 0, failures: new Map(), rss: [], dashboard: [], direct: [] }
  const stats = { requests: 0, errors: 0, latencies: [] as number[], events: 0, logLines: 0, shells: 0 }
  const fail = (what: string) => {
    stats.errors++
    run.failures.set(what, (run.failures.get(what) ?? 0) + 1)
  }
  const latency = (ms: number) => {
    stats.latencies.push(ms)
    run.latencies.push(ms)
  }
  async function call(method: string, path: string, body?: unknown) {
    const t0 = performance.now()
    try {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: body ? { "content-type": "application/json" } : {},
        body: body ? JSON.stringify(body) : undefined,
      })
      await res.arrayBuffer()
      if (!res.ok) fail(`${method} ${path} ${res.status}`)
    } catch (err) {
      fail(`${method} ${path} ${(err as Error).message}`)
    }
    stats.requests++
    run.requests++
    latency(performance.now() - t0)
  }

  async function reader(i: number) {
    for (let n = i; running(); n++) await call("GET", READS[n % READS.length]!)
  }

  /** Follows an SSE stream until the deadline, opening it again when it ends (a stack's log ends when its containers stop). */
  async function subscribe(path: string, onLine: () => void) {
    const abort = new AbortController()
    const stop = setTimeout(() => abort.abort(), deadline - Date.now())
    try {
      while (running()) {
        const res = await fetch(`${service.url}${path}`, { signal: abort.signal })
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
          for (const line of new TextDecoder().decode(chunk).split("\n")) if (line.startsWith("data:")) onLine()
        await Bun.sleep(250)
      }
    } catch (err) {
      if (running()) fail(`SSE ${path} ${(err as Error).message}`)
    } finally {
      clearTimeout(stop)
    }
  }

  async function shell(container: string) {
    for (let n = 0; running(); n++) {
      const t0 = performance.now()
      const marker = `hm-${n}-${n * 7}`
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(`${service.url.replace("http", "ws")}/api/containers/${container}/shell`)
        ws.binaryType = "arraybuffer"
        let seen = ""
        const timer = setTimeout(() => (fail("shell timeout"), ws.close(), resolve()), 10_000)
        ws.onopen = () => ws.send(`echo ${marker.replace(/-/g, "-''")}\n`)
        ws.onmessage = (m) => {
          seen += typeof m.data === "string" ? m.data : new TextDecoder().decode(m.data)
          if (seen.includes(marker)) {
            clearTimeout(timer)
            stats.shells++
            ws.close()
            resolve()
          }
        }
        ws.onerror = () => (clearTimeout(timer), fail("shell error"), resolve())
      })
      latency(performance.now() - t0)
      await Bun.sleep(200)
    }
  }

  async function stackActions() {
    const actions = ["restart", "pause", "unpause", "start"]
    for (let n = 0; running(); n++) {
      await call("POST", `/api/stacks/load/${actions[n % actions.length]}`)
      await Bun.sleep(10_000)
    }
  }

  try {
    const deployed = await fetch(`${service.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "load", content: COMPOSE }),
    })
    if (!deployed.ok) throw new Error(`deploy failed: ${deployed.status} ${await deployed.text()}`)
    // The shells get a stack of their own: the stack actions pause and restart "load", and a paused container refuses a shell.
    const shells = await fetch(`${service.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "load-shells", content: COMPOSE }),
    })
    if (!shells.ok) throw new Error(`deploy failed: ${shells.status} ${await shells.text()}`)
    const containers = (await (await fetch(`${service.url}/api/containers`)).json()) as {
      id: string
      stack?: string
      service?: string
    }[]
    const shellTarget = containers.find((c) => c.stack === "load-shells" && c.service === "quiet")?.id
    if (!shellTarget) throw new Error("no container for the shells")

    // The baseline: the engine's own container list against our dashboard, before the load starts.
    const engineList = await engineContainerList(engine.host)
    const direct = run.direct
    const ours = run.dashboard
    for (let i = 0; i < 30; i++) {
      let t0 = performance.now()
      await engineList()
      direct.push(performance.now() - t0)
      t0 = performance.now()
      await fetch(`${service.url}/api/dashboard`).then((r) => r.arrayBuffer())
      ours.push(performance.now() - t0)
    }

    console.log(`${label}: load for ${seconds}s (pid ${service.proc.pid})`)
    console.log("t/min   req/s   p50 ms  p99 ms  errors  events  log lines  shells  RSS MiB")
    const rss = run.rss
    let tick = 0
    const report = setInterval(() => {
      tick++
      const mem = rssMiB(service.proc.pid)
      rss.push(mem)
      const cells = [
        tick * (INTERVAL / 60),
        stats.requests / INTERVAL,
        percentile(stats.latencies, 0.5),
        percentile(stats.latencies, 0.99),
        stats.errors,
        stats.events,
        stats.logLines,
        stats.shells,
        mem,
      ]
      console.log(
        cells
          .map((c, i) => (i === 0 ? String(c).padEnd(6) : c.toFixed(i === 4 || (i > 4 && i < 8) ? 0 : 1).padStart(7)))
          .join(" "),
      )
      Object.assign(stats, { requests: 0, errors: 0, latencies: [], events: 0, logLines: 0, shells: 0 })
    }, INTERVAL * 1000)

    await Promise.all([
      ...Array.from({ length: READERS }, (_, i) => reader(i)),
      ...Array.from({ length: EVENT_SUBSCRIBERS }, () => subscribe("/api/events", () => stats.events++)),
      ...Array.from({ length: LOG_SUBSCRIBERS }, () =>
        subscribe("/api/stacks/load/logs?follow=true&tail=0", () => stats.logLines++),
      ),
      ...Array.from({ length: SHELLS }, () => shell(shellTarget)),
      stackActions(),
    ])
    clearInterval(report)
    if (rss.length >= 2) ratio(`${label}: RSS last interval vs first`, rss.at(-1)!, rss[0]!, " MiB")
    return run
  } finally {
    for (const name of ["load", "load-shells"])
      await fetch(`${service.url}/api/stacks/${name}?volumes=true`, { method: "DELETE" }).catch(() => {})
    await service.stop()
  }
}

const dir = mkdtempSync(join(tmpdir(), "hm-bench-load-"))
const engine = startEngine("load")
try {
  const service = binaryHere(dir)
  const baseline = binaryAt(BASELINE, dir)
  const half = SECONDS / 2
  const loadAverage = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")
  console.log(`load average before: ${await loadAverage()}`)
  const runs = { service: [] as Run[], baseline: [] as Run[] }
  for (const [who, binary] of [
    ["baseline", baseline],
    ["service", service],
    ["service", service],
    ["baseline", baseline],
  ] as const)
    runs[who].push(await drive(binary, who === "baseline" ? BASELINE : "service", engine, half))
  console.log(`load average after: ${await loadAverage()}`)
  const all = (who: keyof typeof runs, part: "latencies" | "dashboard" | "direct") => runs[who].flatMap((r) => r[part])
  for (const [p, name] of [
    [0.5, "p50"],
    [0.99, "p99"],
  ] as const)
    ratio(
      `${name} of every call, service vs ${BASELINE} (target <= 1.1)`,
      percentile(all("service", "latencies"), p),
      percentile(all("baseline", "latencies"), p),
      " ms",
    )
  for (const who of ["service", "baseline"] as const) {
    const failures = runs[who].flatMap((r) => [...r.failures])
    const requests = runs[who].reduce((n, r) => n + r.requests, 0)
    console.log(`${who}: ${requests} requests, ${failures.reduce((n, [, c]) => n + c, 0)} errors`)
    for (const [what, count] of failures) console.log(`  errors: ${count} x ${what}`)
  }
  ratio(
    "dashboard p50 vs engine /containers/json p50",
    median(all("service", "dashboard")),
    median(all("service", "direct")),
    " ms",
  )
} finally {
  engine.stop()
  rmSync(dir, { recursive: true, force: true })
}
