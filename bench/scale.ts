// bench/scale: how the service's cost grows with the stacks it keeps. On a private engine of each
// flavour (BENCH_FLAVOURS), stacks are deployed through the API (compose, the busybox test image), each
// with three services: one that runs and two one-shot jobs that exit at once (3,000 containers at
// 1,000 stacks, 1,000 of them running: a running container holds about 4 MiB of the host's memory,
// which 3,000 of them would take from a machine shared with other work). No service is on a network
// (`network_mode: none`): a project network each would outrun the engine's default address pools at
// about 30, and 3,000 containers on one bridge the kernel's 1,024 ports of a bridge. The estate grows
// through the sizes (BENCH_SIZES, default 10 100 1000) and each measure is printed at each size:
//   - reads: GET /api/stacks, /api/dashboard and /api/containers?all=true, p50 and p99 against the
//     engine's own GET /containers/json?all=1 in the same rounds (targets 1.5 and 2); /metrics
//     against the container list (target 1.5); the MCP tools list_stacks, list_containers and
//     system_summary (a JSON-RPC tools/call on an open session, its answer read whole) against the
//     route each stands for (target 1.3);
//   - idle: the service's CPU over BENCH_IDLE_S with the stats sampler on (target under 3 % of a
//     core) and its RSS, against a service on the same engine with no stacks (target 2x);
//   - start-up on the estate's data directory to the first health answer and to the first full
//     stack list, against the same service on an empty data directory and the same engine (target 2x);
//   - one more stack deployed, applied (an environment change) and deleted, against the same on a
//     service with no stacks on the same engine (target 1.1);
//   - in Chromium, the stack list page's first rows against the list's API answer (target 1.5).
// The estate (engine, data directory) is built once per flavour and reused by every measure. The
// machine's load average is printed with every size's figures: a loaded machine's are no finding.
// Run as root: bun bench/scale.ts (after `bun run build`, to measure the compiled binary); a quick
// check that it works: BENCH_FLAVOURS=current BENCH_SIZES="2 4" BENCH_ROUNDS=5 BENCH_IDLE_S=2
// BENCH_STARTS=1 BENCH_CYCLES=1 BENCH_UI=off bun bench/scale.ts
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import {
  benchFlavours,
  composeTools,
  cpuSeconds,
  engineContainerList,
  percentile,
  rssMiB,
  startEngine,
  startService,
  type BenchService,
  type Flavour,
} from "./support.ts"

const SIZES = (process.env.BENCH_SIZES ?? "10 100 1000").split(/\s+/).filter(Boolean).map(Number)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60)
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 60)
const DEPLOYS_AT_ONCE = Number(process.env.BENCH_DEPLOYS ?? 4)
const CYCLES = Number(process.env.BENCH_CYCLES ?? 3)
const STARTS = Number(process.env.BENCH_STARTS ?? 3)
const UI = process.env.BENCH_UI !== "off"

const job = (command: string) =>
  `    image: svc-test/busybox:latest\n    command: ${command}\n    network_mode: none\n    restart: "no"\n    stop_grace_period: 1s\n`
const composeFile = (extra = "") =>
  `services:\n  app:\n${job("sleep 1000000")}    environment:\n      DB_PASSWORD: \${DB_PASSWORD}\n${extra}  migrate:\n${job('"true"')}  report:\n${job('"true"')}`
const stackName = (i: number) => `s${String(i).padStart(4, "0")}`

type Figures = Record<string, number | string>
const curve: { flavour: Flavour; size: number; figures: Figures }[] = []

async function call(svc: BenchService, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`)
  return text ? JSON.parse(text) : null
}

const deploy = (svc: BenchService, name: string, extra = "") =>
  call(svc, "POST", "/api/stacks", {
    name,
    content: composeFile(extra),
    env: [{ key: "DB_PASSWORD", value: `pw-${name}-secret`, secret: true }],
  })

/** Deploys stacks `from`..`to`-1, a few at once. */
async function grow(svc: BenchService, from: number, to: number): Promise<void> {
  let next = from
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: DEPLOYS_AT_ONCE }, async () => {
      while (next < to) {
        const i = next++
        await deploy(svc, stackName(i))
        if ((i + 1) % 100 === 0) console.log(`  ${i + 1} stacks (${((performance.now() - t0) / 1000).toFixed(0)} s)`)
      }
    }),
  )
}

/** A session of /mcp spoken as JSON-RPC over plain fetch; `tool` answers a tools/call's result, read whole. */
async function mcpSession(svc: BenchService) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  }
  let id = 0
  const rpc = async (method: string, params: unknown, notify = false) => {
    const res = await fetch(`${svc.url}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method, params, ...(notify ? {} : { id: ++id }) }),
    })
    const session = res.headers.get("mcp-session-id")
    if (session) headers["mcp-session-id"] = session
    const text = await res.text()
    if (notify) return null
    const data = text.startsWith("{") ? text : text.slice(text.indexOf("data: ") + 6)
    const answer = JSON.parse(data)
    if (answer.error || answer.result?.isError) throw new Error(`${method}: ${data.slice(0, 300)}`)
    return answer.result
  }
  await rpc("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  })
  await rpc("notifications/initialized", {}, true)
  return { tool: (name: string, args: Record<string, unknown> = {}) => rpc("tools/call", { name, arguments: args }) }
}

const p = (xs: number[], q: number) => percentile(xs, q)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")
const ms = (x: number) => `${x.toFixed(1)} ms`

/** The reads measured, each answered whole: the engine's own list, the service's routes and MCP tools. */
async function readCalls(svc: BenchService, host: string): Promise<Record<string, () => Promise<unknown>>> {
  const engineList = await engineContainerList(host)
  const mcp = await mcpSession(svc)
  const get = (path: string) => () => fetch(`${svc.url}${path}`).then((r) => r.arrayBuffer())
  return {
    engine: engineList,
    stacks: get("/api/stacks"),
    dashboard: get("/api/dashboard"),
    containers: get("/api/containers?all=true"),
    metrics: get("/metrics"),
    "mcp list_stacks": () => mcp.tool("list_stacks"),
    "mcp list_containers": () => mcp.tool("list_containers", { all: true }),
    "mcp system_summary": () => mcp.tool("system_summary"),
  }
}

/** Each read asked three times: what a service loads to answer them is loaded before it is measured. */
async function warm(calls: Record<string, () => Promise<unknown>>) {
  for (let i = 0; i < 3; i++) for (const fn of Object.values(calls)) await fn()
}

/** The reads, each round in a new random order, every answer read whole. */
async function reads(svc: BenchService, host: string, size: number, figures: Figures) {
  const calls = await readCalls(svc, host)
  const stacks = (await call(svc, "GET", "/api/stacks")) as { name: string; managed: boolean }[]
  if (stacks.filter((s) => s.managed).length !== size)
    throw new Error(`the list has ${stacks.length} stacks, not ${size}`)
  await warm(calls)
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(calls).map((k) => [k, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const order = Object.keys(calls).sort(() => Math.random() - 0.5)
    for (const name of order) {
      const t0 = performance.now()
      await calls[name]!()
      times[name]!.push(performance.now() - t0)
    }
  }
  const base = { p50: p(times.engine!, 0.5), p99: p(times.engine!, 0.99) }
  figures["engine list p50"] = ms(base.p50)
  for (const name of ["stacks", "dashboard", "containers"]) {
    const t = times[name]!
    figures[`${name} p50`] = `${ms(p(t, 0.5))} (${(p(t, 0.5) / base.p50).toFixed(2)}x)`
    figures[`${name} p99`] = `${ms(p(t, 0.99))} (${(p(t, 0.99) / base.p99).toFixed(2)}x)`
  }
  const containers = p(times.containers!, 0.5)
  figures["metrics p50"] =
    `${ms(p(times.metrics!, 0.5))} (${(p(times.metrics!, 0.5) / containers).toFixed(2)}x containers)`
  const route = { list_stacks: "stacks", list_containers: "containers", system_summary: "dashboard" }
  for (const [tool, of] of Object.entries(route)) {
    const t = p(times[`mcp ${tool}`]!, 0.5)
    figures[`mcp ${tool} p50`] = `${ms(t)} (${(t / p(times[of]!, 0.5)).toFixed(2)}x)`
  }
}

/** CPU (% of a core) and RSS of a service left alone for IDLE_S, stats sampler on. */
async function idle(svc: BenchService): Promise<{ cpu: number; rss: number }> {
  await Bun.sleep(10_000)
  const c0 = cpuSeconds(svc.proc.pid)
  const t0 = performance.now()
  await Bun.sleep(IDLE_S * 1000)
  return {
    cpu: ((cpuSeconds(svc.proc.pid) - c0) / ((performance.now() - t0) / 1000)) * 100,
    rss: rssMiB(svc.proc.pid),
  }
}

/** Spawn to the first health answer, and to the first stack list holding `size` stacks. */
async function start(env: Record<string, string>, dataDir: string, size: number) {
  const t0 = performance.now()
  const svc = await startService(env, { dataDir })
  const health = performance.now() - t0
  for (;;) {
    const list = (await call(svc, "GET", "/api/stacks")) as { managed: boolean }[]
    if (list.filter((s) => s.managed).length === size) break
    await Bun.sleep(5)
  }
  return { svc, health, list: performance.now() - t0 }
}

/** One stack deployed, applied with a changed environment, deleted: milliseconds of each. */
async function cycle(svc: BenchService, name: string) {
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now()
    await fn()
    return performance.now() - t0
  }
  const deployed = await timed(() => deploy(svc, name))
  await call(svc, "PUT", `/api/stacks/${name}/env`, [{ key: "DB_PASSWORD", value: "changed", secret: true }])
  const applied = await timed(() => call(svc, "POST", `/api/stacks/${name}/apply`, {}))
  const deleted = await timed(() => call(svc, "DELETE", `/api/stacks/${name}`))
  return { deployed, applied, deleted }
}

/** In Chromium: the stack list page's first rows drawn, against the page fetching GET /api/stacks itself. */
async function uiFirstRows(svc: BenchService): Promise<{ rows: number; api: number }> {
  const { openBrowser } = await import("../tests/support/browser.ts")
  const browser = await openBrowser()
  try {
    const { page } = browser
    await page.goto(`${svc.url}/#/containers`)
    await page.locator("main h1").first().waitFor()
    const rows: number[] = []
    const api: number[] = []
    for (let i = 0; i < 5; i++) {
      await page.goto(`${svc.url}/#/containers`)
      await page.locator("main h1").first().waitFor()
      api.push(
        await page.evaluate(async () => {
          const t0 = performance.now()
          await (await fetch("/api/stacks")).json()
          return performance.now() - t0
        }),
      )
      const t0 = performance.now()
      await page.evaluate(() => (location.hash = "#/stacks"))
      await page.locator("main table tbody tr").first().waitFor()
      rows.push(performance.now() - t0)
    }
    return { rows: p(rows, 0.5), api: p(api, 0.5) }
  } finally {
    await browser.close()
  }
}

async function measure(flavour: Flavour) {
  const engine = startEngine("scale", flavour)
  const env = {
    DOCKER_HOST: engine.host,
    SVC_METRICS: "on",
    SVC_MCP: "full",
    ...composeTools(flavour),
  }
  const dataDir = mkdtempSync(join(tmpdir(), "hm-bench-scale-"))
  const emptyDir = () => mkdtempSync(join(tmpdir(), "hm-bench-scale-empty-"))
  let svc = await startService(env, { dataDir })
  console.log(`\n== ${flavour}: service ${svc.compiled ? "compiled binary" : "bun server.ts"}, engine ${engine.host}`)
  try {
    let size = 0
    for (const target of SIZES) {
      console.log(`[${flavour}] deploying stacks ${size + 1}..${target}`)
      await grow(svc, size, target)
      size = target
      const figures: Figures = { "load average (1, 5, 15 min)": load() }
      curve.push({ flavour, size, figures })
      await reads(svc, engine.host, size, figures)
      console.log(`[${flavour}] ${size} stacks, reads:`, figures)

      // Idle, against a service on the same engine with no stacks that answered the same reads (each alone).
      const ours = await idle(svc)
      const noneDir = emptyDir()
      const none = await startService(env, { dataDir: noneDir })
      await warm(await readCalls(none, engine.host))
      const theirs = await idle(none)
      await none.stop()
      rmSync(noneDir, { recursive: true, force: true })
      figures["idle CPU"] = `${ours.cpu.toFixed(2)} % of a core (no stacks: ${theirs.cpu.toFixed(2)} %)`
      figures["idle RSS"] =
        `${ours.rss.toFixed(1)} MiB (${(ours.rss / theirs.rss).toFixed(2)}x no stacks: ${theirs.rss.toFixed(1)} MiB)`

      // Start-up, alternating with the same service on an empty data directory.
      await svc.stop()
      const starts = { health: [] as number[], list: [] as number[], health0: [] as number[], list0: [] as number[] }
      for (let i = 0; i < STARTS; i++) {
        const empty = emptyDir()
        const zero = await start(env, empty, 0)
        await zero.svc.stop()
        rmSync(empty, { recursive: true, force: true })
        starts.health0.push(zero.health)
        starts.list0.push(zero.list)
        const full = await start(env, dataDir, size)
        starts.health.push(full.health)
        starts.list.push(full.list)
        if (i < STARTS - 1) await full.svc.stop()
        else svc = full.svc
      }
      const m = (xs: number[]) => p(xs, 0.5)
      figures["start to health"] = `${ms(m(starts.health))} (${(m(starts.health) / m(starts.health0)).toFixed(2)}x)`
      figures["start to full list"] = `${ms(m(starts.list))} (${(m(starts.list) / m(starts.list0)).toFixed(2)}x)`

      // One stack's life, alternating with a service with no stacks on the same engine.
      const empty = emptyDir()
      const none2 = await startService(env, { dataDir: empty })
      const ourCycles = []
      const noneCycles = []
      for (let i = 0; i < CYCLES; i++) {
        ourCycles.push(await cycle(svc, "probe"))
        noneCycles.push(await cycle(none2, "probe"))
      }
      await none2.stop()
      rmSync(empty, { recursive: true, force: true })
      for (const k of ["deployed", "applied", "deleted"] as const) {
        const a = m(ourCycles.map((c) => c[k]))
        const b = m(noneCycles.map((c) => c[k]))
        figures[k] = `${ms(a)} (${(a / b).toFixed(2)}x no stacks: ${ms(b)})`
      }

      if (UI) {
        const ui = await uiFirstRows(svc)
        figures["UI first rows"] = `${ms(ui.rows)} (${(ui.rows / ui.api).toFixed(2)}x the API's ${ms(ui.api)})`
      }
      figures["load average after"] = load()
      console.log(`[${flavour}] ${size} stacks:`, figures)
    }
  } finally {
    await svc.stop().catch(() => {})
    engine.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
console.log("\n== the cost curve")
const keys = [...new Set(curve.flatMap((c) => Object.keys(c.figures)))]
for (const k of keys) {
  console.log(`${k}:`)
  for (const c of curve) console.log(`  [${c.flavour}] ${String(c.size).padStart(5)}: ${c.figures[k]}`)
}
