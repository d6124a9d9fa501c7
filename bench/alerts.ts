// bench/alerts: how soon an alert reaches people, and what the rules cost while nothing happens.
// 1. Latency: 100 containers on a private engine killed at once (exit 137); for each one, the time
//    from the engine's `die` event (its timeNano) to the message naming it at a webhook receiver on
//    loopback, through the service (a container_died rule, one JSON webhook channel), against the
//    same event read straight from the engine's event stream by a bare script running beside it,
//    and against that script posting each event to the receiver itself (what a user's own script
//    would do). Target: p50 at most 1.5 times the bare script's, every alert delivered.
// 2. Idle: the service's CPU with 20 rules and 500 running containers over a window with nothing
//    happening, as a share of one core, against the same service with no rules. Target: under 1 %.
// Run as root: bun bench/alerts.ts (BENCH_FLAVOURS, BENCH_DYING, BENCH_IDLE_CONTAINERS, BENCH_WINDOW_S).
import { readFileSync } from "node:fs"
import { dockerEngine, parseDockerHost } from "#lib/engine/client.ts"
import {
  benchFlavours,
  median,
  percentile,
  startEngine,
  startService,
  type BenchService,
  type Flavour,
} from "./support.ts"

const DYING = Number(process.env.BENCH_DYING ?? 100)
const IDLE_CONTAINERS = Number(process.env.BENCH_IDLE_CONTAINERS ?? 500)
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 60)
const IMAGE = "svc-test/busybox:latest"
const TICK = 100 // USER_HZ

/** CPU seconds (user + system) a process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / TICK
}

async function api(svc: BenchService, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** Starts `n` sleeping containers labelled for the bench, ten at a time; answers their ids and names. */
async function startContainers(host: string, n: number, prefix: string) {
  const docker = dockerEngine(host)
  const made: { id: string; name: string }[] = []
  for (let batch = 0; batch < n; batch += 10)
    await Promise.all(
      Array.from({ length: Math.min(10, n - batch) }, async (_, i) => {
        const name = `${prefix}-${batch + i}`
        const { Id } = await docker.createContainer(
          {
            Image: IMAGE,
            Cmd: ["sleep", "3600"],
            Labels: { "hm.bench": "1", "com.docker.compose.project": `p${(batch + i) % 7}` },
          },
          name,
        )
        await docker.containerAction(Id, "start")
        made.push({ id: Id, name })
      }),
    )
  return made
}

async function removeAll(host: string) {
  const docker = dockerEngine(host)
  const all = await docker.listContainers({ all: true, filters: { label: ["hm.bench"] } })
  for (let i = 0; i < all.length; i += 20)
    await Promise.all(all.slice(i, i + 20).map((c) => docker.removeContainer(c.Id, { force: true }).catch(() => {})))
}

/**
 * The bare script: reads the engine's event stream and prints "<name> <ms since the event>" for each
 * die; with BARE_POST, it also posts each one to that URL (what a user's own script would do).
 */
const BARE = `
const [base, unix, post] = [process.env.BARE_BASE, process.env.BARE_UNIX || undefined, process.env.BARE_POST]
const filters = encodeURIComponent(JSON.stringify({ type: ["container"], event: ["die"] }))
const res = await fetch(base + "/events?filters=" + filters, { unix })
console.log("ready")
let buf = ""
for await (const chunk of res.body) {
  buf += new TextDecoder().decode(chunk)
  for (let i = buf.indexOf("\\n"); i !== -1; i = buf.indexOf("\\n")) {
    const e = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1)
    console.log(e.Actor.Attributes.name + " " + (Date.now() - e.timeNano / 1e6))
    if (post) fetch(post, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ alerts: [{ title: "container " + e.Actor.Attributes.name + " exited" }] }) })
  }
}
`

async function latency(flavour: Flavour, host: string) {
  const docker = dockerEngine(host)
  // Each container's die time (ms, from the engine's events), and when its name reached the receiver.
  const dieAt = new Map<string, number>()
  const arrived = new Map<string, number>()
  const posted = new Map<string, number>()
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const now = Date.now()
      const into = new URL(req.url).pathname === "/bare" ? posted : arrived
      const body = (await req.json()) as { alerts: { title: string }[] }
      for (const a of body.alerts) {
        const name = /container (\S+) exited/.exec(a.title)?.[1]
        if (name && !into.has(name)) into.set(name, now)
      }
      return new Response("ok")
    },
  })
  const svc = await startService({ DOCKER_HOST: host, SVC_STATS_HISTORY: "off" })
  const target = parseDockerHost(host)
  const bare = Bun.spawn(["bun", "-e", BARE], {
    env: {
      ...process.env,
      BARE_BASE: target.base,
      BARE_UNIX: target.unix ?? "",
      BARE_POST: `http://127.0.0.1:${receiver.port}/bare`,
    },
    stdout: "pipe",
    stderr: "inherit",
  })
  const bareLatency = new Map<string, number>()
  const lines = (async () => {
    let buf = ""
    for await (const chunk of bare.stdout) {
      buf += new TextDecoder().decode(chunk)
      for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
        const [name, ms] = buf.slice(0, i).split(" ")
        buf = buf.slice(i + 1)
        if (ms !== undefined) bareLatency.set(name!, Number(ms))
      }
    }
  })()
  // The engine's own record of each die, to measure the service's delivery against.
  const stopEvents = new AbortController()
  const events = (async () => {
    for await (const e of docker.events({
      signal: stopEvents.signal,
      since: Math.floor(Date.now() / 1000),
      filters: { type: ["container"], event: ["die"] },
    }))
      if (e.Actor?.Attributes?.name) dieAt.set(e.Actor.Attributes.name, (e.timeNano ?? e.time * 1e9) / 1e6)
  })().catch(() => {})
  try {
    const channel = await api(svc, "POST", "/alerts/channels", {
      name: "bench",
      url: `http://127.0.0.1:${receiver.port}/hook`,
    })
    await api(svc, "POST", "/alerts/rules", {
      name: "crashes",
      kind: "container_died",
      scope: { labels: ["hm.bench=1"] },
      channels: [channel.id],
    })
    const dying = await startContainers(host, DYING, "die")
    await Bun.sleep(3000) // the alerts job starts within a second of the first rule; the bare script is connected
    console.log(`\n== ${flavour}: ${DYING} containers killed at once`)
    await Promise.all(
      dying.map((c) =>
        fetch(`${target.base}/containers/${c.id}/kill`, { method: "POST", unix: target.unix } as RequestInit),
      ),
    )
    for (const end = Date.now() + 60_000; Date.now() < end && (arrived.size < DYING || bareLatency.size < DYING); )
      await Bun.sleep(100)
    const service = dying.flatMap((c) =>
      arrived.has(c.name) && dieAt.has(c.name) ? [arrived.get(c.name)! - dieAt.get(c.name)!] : [],
    )
    const script = [...bareLatency.values()]
    const poster = dying.flatMap((c) =>
      posted.has(c.name) && dieAt.has(c.name) ? [posted.get(c.name)! - dieAt.get(c.name)!] : [],
    )
    const [s50, b50] = [median(service), median(script)]
    const deaths = [...dieAt.values()]
    console.log(
      `delivered ${arrived.size} of ${DYING} alerts (the bare script read ${bareLatency.size} events); the engine's die events spread over ${(Math.max(...deaths) - Math.min(...deaths)).toFixed(0)} ms`,
    )
    console.log(
      `service: p50 ${s50.toFixed(1)} ms, p90 ${percentile(service, 0.9).toFixed(1)} ms, max ${Math.max(...service).toFixed(1)} ms`,
    )
    console.log(
      `bare script: p50 ${b50.toFixed(1)} ms, p90 ${percentile(script, 0.9).toFixed(1)} ms, max ${Math.max(...script).toFixed(1)} ms`,
    )
    console.log(
      `bare script posting each event to the receiver: p50 ${median(poster).toFixed(1)} ms, p90 ${percentile(poster, 0.9).toFixed(1)} ms; service p50 ratio to it ${(s50 / median(poster)).toFixed(2)}`,
    )
    const history = (await api(svc, "GET", "/alerts/history?limit=1000")).entries as { grouped: number }[]
    const messages = history.reduce((n, e) => n + 1 / e.grouped, 0)
    console.log(
      `p50 ratio ${(s50 / b50).toFixed(2)} (target 1.5); ${history.length} alerts in ${Math.round(messages)} messages`,
    )
  } finally {
    bare.kill()
    await lines.catch(() => {})
    stopEvents.abort()
    await events
    receiver.stop(true)
    await svc.stop()
    await removeAll(host)
  }
}

async function idle(flavour: Flavour, host: string) {
  console.log(`\n== ${flavour}: ${IDLE_CONTAINERS} running containers, ${WINDOW_S} s with nothing happening`)
  await startContainers(host, IDLE_CONTAINERS, "idle")
  const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") })
  // Stats history off for both: the sampler's own cost is bench/stats.ts's; a cpu or memory rule would wake it.
  const bare = await startService({ DOCKER_HOST: host, SVC_STATS_HISTORY: "off" })
  const ruled = await startService({ DOCKER_HOST: host, SVC_STATS_HISTORY: "off" })
  try {
    const ch = await api(ruled, "POST", "/alerts/channels", {
      name: "bench",
      url: `http://127.0.0.1:${receiver.port}/hook`,
    })
    const kinds = [
      { kind: "container_died" },
      { kind: "container_oom" },
      { kind: "container_unhealthy" },
      { kind: "restart_loop" },
      { kind: "stack_degraded" },
      { kind: "event" },
      { kind: "backup_overdue" },
      { kind: "node_offline" },
      { kind: "swarm_replicas" },
      { kind: "disk", target: "data", above: 95 },
      { kind: "disk", target: "engine", above: 95 },
    ]
    for (let i = 0; i < 20; i++)
      await api(ruled, "POST", "/alerts/rules", {
        name: `rule ${i}`,
        ...kinds[i % kinds.length],
        scope: i % 2 ? { stacks: [`p${i % 7}`] } : {},
        channels: [ch.id],
      })
    await Bun.sleep(5000) // past the first polls
    const pids = [bare.proc.pid, ruled.proc.pid]
    const before = pids.map(cpuSeconds)
    await Bun.sleep(WINDOW_S * 1000)
    const [none, twenty] = pids.map((pid, i) => ((cpuSeconds(pid) - before[i]!) / WINDOW_S) * 100)
    console.log(`service with no rules: ${none!.toFixed(2)} % of a core`)
    console.log(
      `service with 20 rules: ${twenty!.toFixed(2)} % of a core (target under 1 %; the rules add ${(twenty! - none!).toFixed(2)} points)`,
    )
  } finally {
    receiver.stop(true)
    await Promise.all([bare.stop(), ruled.stop()])
    await removeAll(host)
  }
}

for (const flavour of benchFlavours()) {
  const engine = startEngine("alerts", flavour)
  try {
    if (DYING > 0) await latency(flavour, engine.host)
    if (IDLE_CONTAINERS > 0) await idle(flavour, engine.host)
  } finally {
    engine.stop()
  }
}
