// bench/nodes: a control plane with a hundred nodes (issue 44). The nodes are the service itself:
// the deploy target is the compiled binary on a private engine (BENCH_FLAVOURS), a few more are the
// binary with no engine (BENCH_REAL at 100 nodes, a tenth of the size below it, every other one joined
// outbound, holding its connection to the control plane), and the rest run in one process that starts
// the service's own server (server.ts's start(): its routes, its cluster membership, its probes'
// answers) once per node on a port of its own. Each joins through its own POST /api/cluster/join.
// A tenth of the nodes answer 2 s late (a proxy in front of them that holds each request 2 s before
// passing it on, their advertised address) and one in twenty is dead (its server stopped after it
// joined, its port held by a listener that never answers, as a host gone mid-connection).
// The estate grows through BENCH_NODES (default 1 10 100) and at each size it prints, against a
// second control plane with one node (the binary on the same engine) asked in the same rounds: GET /api/nodes and the cluster page's calls (GET /api/cluster,
// /api/cluster/token and /api/nodes at once) p50 and p99 (target: within 1.5 s); the dashboard; a
// check of every node (POST /api/nodes/check, bounded by the probe deadline, SVC_PROBE_TIMEOUT_MS)
// and the statuses it found; a stack deployed to the target node through the gateway and deleted
// while every node is checked again and again (target 1.2x one node); the control plane's RSS
// against a control plane with no nodes that answered the same reads (target 2x).
// Run as root: bun bench/nodes.ts (after `bun run build`); a quick check: BENCH_FLAVOURS=current
// BENCH_NODES="1 5" BENCH_ROUNDS=5 BENCH_CYCLES=1 bun bench/nodes.ts
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../tests/support/service.ts"
import {
  benchFlavours,
  percentile,
  rssMiB,
  startEngine,
  startService,
  type BenchService,
  type Flavour,
} from "./support.ts"

const SIZES = (process.env.BENCH_NODES ?? "1 10 100").split(/\s+/).filter(Boolean).map(Number)
const REAL = Number(process.env.BENCH_REAL ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30)
const CYCLES = Number(process.env.BENCH_CYCLES ?? 3)
const SLOW_MS = 2000
const KEY = "5a".repeat(32) // one secret key for the nodes that share a process
const NO_ENGINE = "unix:///nonexistent/hm-bench-nodes.sock"

/**
 * Child mode: nodes of the service in this process. Commands on stdin, one answer line each:
 * "add K SLOW" starts K nodes, the last SLOW of them behind a proxy holding each request SLOW_MS,
 * and answers [{ url, advertise }]; "dead URL..." stops those nodes and holds their ports unanswered.
 */
async function simulator(answer: (line: string) => void) {
  const { start } = await import("../server.ts")
  const servers = new Map<string, { stop(force?: boolean): unknown; port: number }>()
  const hung: unknown[] = []
  process.env.SVC_STATS_HISTORY = "off"
  for await (const line of console) {
    const [cmd, ...args] = line.split(" ")
    if (cmd === "add") {
      const [k, slow] = args.map(Number) as [number, number]
      const out = []
      for (let i = 0; i < k; i++) {
        const dataDir = mkdtempSync(join(tmpdir(), "hm-bench-node-"))
        const port = await freePort()
        const server = await start({
          ...process.env,
          SVC_ADDR: `127.0.0.1:${port}`,
          SVC_DATA: dataDir,
          SVC_SECRET_KEY: KEY,
          DOCKER_HOST: NO_ENGINE,
        })
        const url = `http://127.0.0.1:${port}`
        servers.set(url, server as never)
        let advertise = url
        if (i >= k - slow) {
          const proxy = Bun.serve({
            hostname: "127.0.0.1",
            port: 0,
            async fetch(req) {
              await Bun.sleep(SLOW_MS)
              const u = new URL(req.url)
              return fetch(`${url}${u.pathname}${u.search}`, {
                method: req.method,
                headers: req.headers,
                body: req.body,
                duplex: "half",
              } as RequestInit)
            },
          })
          advertise = `http://127.0.0.1:${proxy.port}`
        }
        out.push({ url, advertise })
      }
      answer(JSON.stringify(out))
    } else if (cmd === "dead") {
      for (const url of args) {
        const server = servers.get(url)!
        await server.stop(true)
        hung.push(Bun.listen({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } }))
      }
      answer(JSON.stringify("ok"))
    }
  }
}

if (process.argv[2] === "--simulator") {
  // The service's own start-up lines would mix with the answers: only the answers go to stdout.
  console.log = () => {}
  await simulator((line) => process.stdout.write(`${line}\n`))
  process.exit(0)
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const text = new TextDecoder()
  let rest = ""
  for await (const chunk of stream) {
    const lines = (rest + text.decode(chunk, { stream: true })).split("\n")
    rest = lines.pop()!
    yield* lines
  }
}

function spawnSimulator() {
  const proc = Bun.spawn(["bun", import.meta.path, "--simulator"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  })
  const lines = linesOf(proc.stdout)[Symbol.asyncIterator]()
  return {
    proc,
    async ask<T>(command: string): Promise<T> {
      proc.stdin.write(`${command}\n`)
      proc.stdin.flush()
      const line = await lines.next()
      if (line.done) throw new Error("the simulator exited")
      return JSON.parse(line.value) as T
    },
  }
}

const json = { "content-type": "application/json" }
async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : json,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return text ? JSON.parse(text) : null
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")
const ms = (x: number) => `${x.toFixed(1)} ms`
const p = percentile

/** The reads of the cluster's pages: the node list, the cluster page's three calls at once, the dashboard. */
function reads(url: string): Record<string, () => Promise<unknown>> {
  const get = (path: string) => () => fetch(`${url}${path}`).then((r) => r.arrayBuffer())
  return {
    nodes: get("/api/nodes"),
    "cluster page": () => Promise.all([get("/api/cluster")(), get("/api/cluster/token")(), get("/api/nodes")()]),
    dashboard: get("/api/dashboard"),
  }
}

const composeFile =
  "services:\n  app:\n    image: svc-test/busybox:latest\n    command: sleep 1000000\n    network_mode: none\n    stop_grace_period: 1s\n"

type Figures = Record<string, number>
const curve: { flavour: Flavour; size: number; figures: Figures; load: string; statuses: string }[] = []

async function measure(flavour: Flavour) {
  const engine = startEngine("nodes", flavour)
  const work = mkdtempSync(join(tmpdir(), "hm-bench-nodes-"))
  const cp = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
  const target = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
  // The baseline, asked in the same rounds: a control plane with one node, the binary on the same engine.
  const solo = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
  const soloNode = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
  const real: BenchService[] = []
  const sim = spawnSimulator()
  console.log(`\n== ${flavour}: control plane ${cp.compiled ? "compiled binary" : "bun server.ts"}`)
  try {
    const token = (await call(cp.url, "POST", "/api/cluster/token")).token as string
    const joinAs = (url: string, name: string, extra: Record<string, string> = {}) =>
      call(url, "POST", "/api/cluster/join", { control_plane_url: cp.url, token, name, ...extra })
    await joinAs(target.url, "target")
    const soloToken = (await call(solo.url, "POST", "/api/cluster/token")).token as string
    await call(soloNode.url, "POST", "/api/cluster/join", {
      control_plane_url: solo.url,
      token: soloToken,
      name: "target",
    })
    let count = 1
    let slow = 0
    let dead = 0
    for (const size of SIZES) {
      // Grow to `size`: a tenth slow and one in twenty dead overall, real binaries where they fit.
      const fresh = size - count
      const slowNow = Math.max(0, Math.round(size / 10) - slow)
      const deadNow = Math.max(0, Math.round(size / 20) - dead)
      const realNow = Math.max(
        0,
        Math.min(fresh - slowNow - deadNow, Math.round((REAL * size) / SIZES.at(-1)!) - real.length),
      )
      const simNow = fresh - realNow
      for (let i = 0; i < realNow; i++) {
        const node = await startService({ DOCKER_HOST: NO_ENGINE, SVC_STATS_HISTORY: "off" })
        real.push(node)
        const name = `real${real.length}`
        await joinAs(node.url, name, real.length % 2 === 0 ? { connect: "outbound" } : {})
      }
      const added = simNow > 0 ? await sim.ask<{ url: string; advertise: string }[]>(`add ${simNow} ${slowNow}`) : []
      for (let i = 0; i < added.length; i += 10)
        await Promise.all(
          added
            .slice(i, i + 10)
            .map((n, j) => joinAs(n.url, `sim${count + realNow + i + j}`, { advertise: n.advertise })),
        )
      if (deadNow > 0)
        await sim.ask(
          `dead ${added
            .slice(0, deadNow)
            .map((n) => n.url)
            .join(" ")}`,
        )
      count = size
      slow += slowNow
      dead += deadNow
      const listed = (await call(cp.url, "GET", "/api/nodes")) as unknown[]
      if (listed.length !== size) throw new Error(`the registry holds ${listed.length} nodes, not ${size}`)

      const figures: Figures = {}
      const started = load()
      // A check of every node, as "Check all" asks it.
      const checks: number[] = []
      let checked: { status: string }[] = []
      for (let i = 0; i < 2; i++) {
        const t0 = performance.now()
        checked = await call(cp.url, "POST", "/api/nodes/check")
        checks.push(performance.now() - t0)
      }
      figures["check all"] = p(checks, 0.5)
      const statuses = Object.entries(
        checked.reduce<Record<string, number>>((acc, n) => ((acc[n.status] = (acc[n.status] ?? 0) + 1), acc), {}),
      )
        .map(([s, n]) => `${n} ${s}`)
        .join(", ")

      // The reads of both control planes, each round in a new random order.
      const calls = {
        ...reads(cp.url),
        ...Object.fromEntries(Object.entries(reads(solo.url)).map(([k, fn]) => [`one node: ${k}`, fn])),
      }
      for (const fn of Object.values(calls)) await fn()
      const times: Record<string, number[]> = Object.fromEntries(Object.keys(calls).map((k) => [k, []]))
      for (let r = 0; r < ROUNDS; r++)
        for (const name of Object.keys(calls).sort(() => Math.random() - 0.5))
          times[name]!.push(await timed(calls[name]!))
      for (const [name, t] of Object.entries(times)) {
        figures[`${name} p50`] = p(t, 0.5)
        figures[`${name} p99`] = p(t, 0.99)
      }

      // A stack to the target node through the gateway while every node is checked over and over,
      // alternating with the same on the control plane with one node (checked over and over too).
      let probing = true
      const probers = [cp, solo].map(async (c) => {
        while (probing) await call(c.url, "POST", "/api/nodes/check")
      })
      const cycles = {
        cp: { deploy: [] as number[], delete: [] as number[] },
        solo: { deploy: [] as number[], delete: [] as number[] },
      }
      for (let i = 0; i < CYCLES; i++)
        for (const [which, c] of [
          ["cp", cp],
          ["solo", solo],
        ] as const) {
          const name = `probe${i}`
          cycles[which].deploy.push(
            await timed(() =>
              call(c.url, "POST", "/api/nodes/target/proxy/api/stacks", { name, content: composeFile }),
            ),
          )
          cycles[which].delete.push(
            await timed(() => call(c.url, "DELETE", `/api/nodes/target/proxy/api/stacks/${name}`)),
          )
        }
      probing = false
      await Promise.all(probers)
      figures["deploy to a node"] = p(cycles.cp.deploy, 0.5)
      figures["delete on a node"] = p(cycles.cp.delete, 0.5)
      figures["one node: deploy to a node"] = p(cycles.solo.deploy, 0.5)
      figures["one node: delete on a node"] = p(cycles.solo.delete, 0.5)

      // RSS against a control plane with no nodes that answered the same reads.
      const none = await startService({ DOCKER_HOST: engine.host, SVC_STATS_HISTORY: "off" })
      await call(none.url, "POST", "/api/cluster/token")
      for (let r = 0; r < 3; r++) for (const fn of Object.values(reads(none.url))) await fn()
      await Bun.sleep(2000)
      figures["RSS"] = rssMiB(cp.proc.pid)
      figures["RSS no nodes"] = rssMiB(none.proc.pid)
      await none.stop()

      curve.push({ flavour, size, figures, load: `${started} -> ${load()}`, statuses })
      console.log(
        `[${flavour}] ${size} node(s) (${slow} slow, ${dead} dead; ${real.length} binaries with no engine, ${size - 1 - real.length} in the simulator), load ${started} -> ${load()}`,
      )
      console.log(`  check all: ${ms(figures["check all"]!)} (${statuses}; probe deadline 5 s)`)
      const vsOne = (name: string) =>
        `${ms(figures[name]!)} (${(figures[name]! / figures[`one node: ${name}`]!).toFixed(2)}x one node's ${ms(figures[`one node: ${name}`]!)})`
      for (const name of Object.keys(reads(cp.url)))
        console.log(`  ${name}: p50 ${vsOne(`${name} p50`)}, p99 ${vsOne(`${name} p99`)} (target: within 1.5 s)`)
      for (const name of ["deploy to a node", "delete on a node"])
        console.log(`  ${name} while every node is checked: ${vsOne(name)} (target 1.2)`)
      console.log(
        `  control plane RSS ${figures.RSS!.toFixed(1)} MiB (${(figures.RSS! / figures["RSS no nodes"]!).toFixed(2)}x no nodes: ${figures["RSS no nodes"]!.toFixed(1)} MiB; target 2)`,
      )
    }
  } finally {
    sim.proc.kill()
    for (const n of real) await n.stop()
    await target.stop()
    await soloNode.stop()
    await solo.stop()
    await cp.stop()
    engine.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
console.log("\n== the cost curve")
for (const name of ["check all", "nodes p50", "cluster page p50", "dashboard p50", "deploy to a node", "RSS"]) {
  console.log(`${name}:`)
  for (const c of curve) console.log(`  [${c.flavour}] ${String(c.size).padStart(4)}: ${c.figures[name]!.toFixed(1)}`)
}
