// Outbound nodes against the inbound gateway, in one run: 1 GiB uploaded and 1,000 small requests
// through a node that holds its connection to the control plane (lib/cluster/link.ts, in a process of
// its own, carrying the streams to the sink's handler in that process as the service carries them to
// its app) vs the same through the gateway to the sink in a process of its own, registered inbound; throughput ratio (target >= 0.8), p50 ratio (target <= 1.5), peak RSS of the control plane
// and of the node (target < 100 MiB). Then 1,000 stand-in members (the same Link, one process) held by
// the control plane: its RSS (target < 200 MiB), a probe of all of them (each within 2 s), and the
// control plane killed and restarted: all back within 60 s, the spread of their reconnect times.
// Run: bun bench/outbound.ts [GiB] [members]   (no container engine is used; 0 members skips that part)
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Link } from "#lib/cluster/link.ts"
import { startService, freePort, type Service } from "../tests/support/service.ts"
import { percentile, rssMiB } from "./support.ts"

const MiB = 1024 * 1024

/** Where every call ends: the node's API of the bench, for the inbound node and each outbound one (/m/{server_id}/… for the stand-ins). */
async function sinkApi(req: Request): Promise<Response> {
  const url = new URL(req.url)
  const m = /^\/m\/([^/]+)(\/.*)$/.exec(url.pathname)
  const id = m ? m[1] : "bench-in"
  const path = m ? m[2] : url.pathname
  if (path === "/api/health" || path === "/api/cluster/verify") return Response.json({ server_id: id })
  if (path === "/small") return Response.json({ ok: true })
  let bytes = 0
  for await (const c of req.body ?? []) bytes += c.length
  return Response.json({ bytes })
}

/** Child mode: `count` links to the control plane, node i at server_id `${prefix}-${i}`, carrying streams to the sink; prints "up i ms" as each connects. */
async function members(cp: string, token: string, prefix: string, count: number, sink: string, prefixed: boolean) {
  const links = Array.from({ length: count }, () => new Link(sinkApi))
  const abort = new AbortController()
  process.on("SIGTERM", () => (abort.abort(), process.exit(0)))
  links.forEach((link, i) => {
    const serverId = count === 1 ? prefix : `${prefix}-${i}`
    void link.run(
      async () => ({ controlPlaneUrl: cp, token, serverId, local: prefixed ? `${sink}/m/${serverId}` : sink }),
      abort.signal,
    )
  })
  const was = links.map(() => false)
  for (;;) {
    links.forEach((link, i) => {
      if (link.state.connected !== was[i]) console.log(`${link.state.connected ? "up" : "down"} ${i} ${Date.now()}`)
      was[i] = link.state.connected
    })
    await Bun.sleep(20)
  }
}

if (process.argv[2] === "--sink") {
  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(process.argv[3]),
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    idleTimeout: 0,
    fetch: sinkApi,
  })
  await new Promise(() => {})
}
if (process.argv[2] === "--members") {
  const [cp, token, prefix, count, sink, prefixed] = process.argv.slice(3)
  await members(cp!, token!, prefix!, Number(count), sink!, prefixed === "1")
}

const size = Number(process.argv[2] ?? 1) * 1024 * MiB
const memberCount = Number(process.argv[3] ?? 1000)
const work = mkdtempSync(join(tmpdir(), "hm-bench-outbound-"))

/** The inbound node: the sink's handler in a process of its own. */
const sinkPort = await freePort()
const sinkUrl = `http://127.0.0.1:${sinkPort}`
const sink = Bun.spawn(["bun", import.meta.path, "--sink", String(sinkPort)], { stdout: "inherit", stderr: "inherit" })
while (
  !(await fetch(`${sinkUrl}/api/health`).then(
    (r) => r.ok,
    () => false,
  ))
)
  await Bun.sleep(20)

const json = { "content-type": "application/json" }
const post = (svc: Service, path: string, body: unknown) =>
  fetch(`${svc.url}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) })
const startCp = (opts: { dataDir?: string; port?: number } = {}) =>
  startService({ DOCKER_HOST: `unix://${work}/no-engine.sock`, SVC_PROBE_TIMEOUT_MS: "2000" }, opts)

let cp = await startCp()
const token = (await (await post(cp, "/api/cluster/token", {})).json()).token as string
await post(cp, "/api/cluster/register", { token, server_id: "bench-in", name: "in", advertise: sinkUrl })
await post(cp, "/api/cluster/register", { token, server_id: "bench-out", name: "out", connect: "outbound" })

type Child = { proc: ReturnType<typeof Bun.spawn>; ups: Map<number, number>; downs: Map<number, number> }
function spawnMembers(prefix: string, count: number, prefixed: boolean): Child {
  const proc = Bun.spawn(
    ["bun", import.meta.path, "--members", cp.url, token, prefix, String(count), sinkUrl, prefixed ? "1" : "0"],
    { stdout: "pipe", stderr: "inherit" },
  )
  const child: Child = { proc, ups: new Map(), downs: new Map() }
  void (async () => {
    let rest = ""
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      const lines = (rest + new TextDecoder().decode(chunk)).split("\n")
      rest = lines.pop()!
      for (const line of lines) {
        const [what, i, at] = line.split(" ")
        ;(what === "up" ? child.ups : child.downs).set(Number(i), Number(at))
      }
    }
  })()
  return child
}
async function until(ok: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await ok()) return true
    await Bun.sleep(50)
  }
  return ok()
}

const chunk = new Uint8Array(MiB).fill(0x5a)
function body(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream({
    pull(c) {
      if (sent >= bytes) return c.close()
      c.enqueue(chunk)
      sent += MiB
    },
  })
}

/** Seconds to upload `bytes` through node `name`, and the peak RSS of each pid meanwhile. */
async function upload(name: string, bytes: number, pids: number[]): Promise<{ seconds: number; peaks: number[] }> {
  const peaks = pids.map(() => 0)
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      pids.forEach((pid, i) => (peaks[i] = Math.max(peaks[i]!, rssMiB(pid))))
      await Bun.sleep(10)
    }
  })()
  const started = performance.now()
  const res = await fetch(`${cp.url}/api/nodes/${name}/proxy/upload`, {
    method: "PUT",
    body: body(bytes),
    headers: { "content-length": String(bytes) },
    duplex: "half",
  } as RequestInit)
  const got = (await res.json()) as { bytes: number }
  const seconds = (performance.now() - started) / 1000
  sampling = false
  await sampler
  if (got.bytes !== bytes) throw new Error(`${name}: the sink saw ${JSON.stringify(got)}`)
  return { seconds, peaks }
}

let node: Child | undefined
let crowd: Child | undefined
try {
  node = spawnMembers("bench-out", 1, false)
  if (!(await until(() => node!.ups.size === 1, 10_000))) throw new Error("the outbound node did not connect")
  const gib = (size / 1024 / MiB).toFixed(2)
  console.log(
    `outbound node vs inbound gateway, ${gib} GiB per upload (Content-Length), best of 3 each; 1,000 small requests alternating`,
  )
  const times = { in: [] as number[], out: [] as number[] }
  let cpPeak = 0
  let nodePeak = 0
  let inboundNodePeak = 0
  for (let round = 0; round < 3; round++) {
    const i = await upload("in", size, [sink.pid])
    times.in.push(i.seconds)
    inboundNodePeak = Math.max(inboundNodePeak, i.peaks[0]!)
    const o = await upload("out", size, [cp.proc.pid, node.proc.pid])
    times.out.push(o.seconds)
    cpPeak = Math.max(cpPeak, o.peaks[0]!)
    nodePeak = Math.max(nodePeak, o.peaks[1]!)
  }
  const best = (xs: number[]) => Math.min(...xs)
  const mibps = (s: number) => (size / MiB / s).toFixed(0)
  console.log(
    `upload: inbound ${mibps(best(times.in))} MiB/s, outbound ${mibps(best(times.out))} MiB/s, throughput ratio ${(best(times.in) / best(times.out)).toFixed(2)} (target >= 0.8)`,
  )
  console.log(
    `peak RSS during the outbound uploads: control plane ${cpPeak.toFixed(0)} MiB, node ${nodePeak.toFixed(0)} MiB (target < 100 MiB); the inbound node reading the same uploads: ${inboundNodePeak.toFixed(0)} MiB`,
  )
  const lat = { in: [] as number[], out: [] as number[] }
  for (let i = 0; i < 1000; i++) {
    for (const name of ["in", "out"] as const) {
      const started = performance.now()
      const res = await fetch(`${cp.url}/api/nodes/${name}/proxy/small?i=${i}`)
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`)
      lat[name].push(performance.now() - started)
    }
  }
  const p50 = { in: percentile(lat.in, 0.5), out: percentile(lat.out, 0.5) }
  console.log(
    `small requests: p50 inbound ${p50.in.toFixed(2)} ms, outbound ${p50.out.toFixed(2)} ms, ratio ${(p50.out / p50.in).toFixed(2)} (target <= 1.5); p99 ${percentile(lat.in, 0.99).toFixed(2)} vs ${percentile(lat.out, 0.99).toFixed(2)} ms`,
  )
  node.proc.kill()
  if (memberCount > 0) {
    // 1,000 stand-in members.
    const idle = rssMiB(cp.proc.pid)
    for (let i = 0; i < memberCount; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, memberCount - i) }, (_, j) =>
          post(cp, "/api/cluster/register", {
            token,
            server_id: `bench-m-${i + j}`,
            name: `m${i + j}`,
            connect: "outbound",
          }),
        ),
      )
    const joinStart = Date.now()
    crowd = spawnMembers("bench-m", memberCount, true)
    const online = async () =>
      ((await (await fetch(`${cp.url}/api/nodes`)).json()) as { name: string; status: string }[]).filter(
        (n) => n.name.startsWith("m") && n.status === "online",
      ).length
    if (!(await until(async () => crowd!.ups.size === memberCount && (await online()) === memberCount, 120_000)))
      throw new Error(`only ${await online()} of ${memberCount} members online`)
    console.log(
      `${memberCount} members connected in ${((Date.now() - joinStart) / 1000).toFixed(1)} s; control plane RSS ${rssMiB(cp.proc.pid).toFixed(0)} MiB (${idle.toFixed(0)} MiB before; target < 200 MiB), the members' process ${rssMiB(crowd.proc.pid).toFixed(0)} MiB`,
    )
    const checkStart = performance.now()
    const checked = (await (await post(cp, "/api/nodes/check", {})).json()) as { name: string; status: string }[]
    const checkMs = performance.now() - checkStart
    const probedOnline = checked.filter((n) => n.name.startsWith("m") && n.status === "online").length
    console.log(
      `probe of every node at once: ${probedOnline} of ${memberCount} online, all answered in ${checkMs.toFixed(0)} ms (target: each within 2000 ms)`,
    )

    // The control plane killed and restarted on its port and data.
    const { dataDir, port } = cp
    cp.proc.kill("SIGKILL")
    await cp.proc.exited
    const killedAt = Date.now()
    await until(() => crowd!.downs.size === memberCount, 10_000)
    crowd.ups.clear()
    cp = await startCp({ dataDir, port })
    const readyAt = Date.now()
    const back = await until(() => crowd!.ups.size === memberCount, 60_000)
    const after = [...crowd.ups.values()].map((t) => (t - readyAt) / 1000)
    console.log(
      `restart: control plane answering ${((readyAt - killedAt) / 1000).toFixed(1)} s after the kill; ${crowd.ups.size} of ${memberCount} back ${back ? "within 60 s" : "NOT within 60 s"}, the last ${Math.max(...after).toFixed(1)} s after it answered`,
    )
    console.log(
      `reconnect spread (s after the control plane answered): min ${Math.min(...after).toFixed(2)}, p10 ${percentile(after, 0.1).toFixed(2)}, p50 ${percentile(after, 0.5).toFixed(2)}, p90 ${percentile(after, 0.9).toFixed(2)}, max ${Math.max(...after).toFixed(2)}; control plane RSS ${rssMiB(cp.proc.pid).toFixed(0)} MiB`,
    )
  }
} finally {
  node?.proc.kill()
  crowd?.proc.kill()
  sink.kill()
  await cp.stop().catch(() => {})
  rmSync(cp.dataDir, { recursive: true, force: true })
  rmSync(work, { recursive: true, force: true })
}
