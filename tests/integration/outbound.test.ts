// A node behind NAT: the member runs in a network namespace and listens on that namespace's own
// loopback, which the control plane cannot reach; it joins outbound and holds a connection it opened
// over a veth pair. Through that connection: the gateway (JSON with a body, SSE event by event, 400
// parallel calls beside a stalled event stream and a log read slowly, a container shell over
// WebSocket), probes, a copy of a stack whose volume holds 32 MiB checksummed to the node, and a
// copy and a move between it and a second outbound member. Faults: a wrong token and a retired
// one refused, a second connection of the same server_id replacing the first, the control plane
// killed and restarted (the member back on its own), the link cut and restored (offline and online
// events), the member killed mid-upload, a removed node's connection closed. The control plane's
// metrics count the connections.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { netnsA, veth } from "../support/netns.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"
import { terminal } from "../support/terminal.ts"

let engine: Engine
let cpEngine: Engine
let ns: string
let link: Awaited<ReturnType<typeof veth>>
let cp: Service
let member: Service
/** A second outbound member in the same namespace, on the control plane's engine: the other side of a copy between two outbound nodes. */
let member2: Service
let token: string
let serverId: string
const running: Service[] = []
const json = { "content-type": "application/json" }
const IDLE = "trap 'exit 0' TERM; while true; do sleep 0.1; done"
const STACK = "hm-outbound"

const call = async (svc: Service, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: body === undefined ? {} : json,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** A call to the member (or `svc`), made from inside its namespace (nothing else reaches it). */
async function inside(method: string, path: string, body?: unknown, svc = member) {
  const data = body === undefined ? [] : ["-H", "content-type: application/json", "--data-binary", JSON.stringify(body)]
  const proc = Bun.spawn(
    ["ip", "netns", "exec", ns, "curl", "-s", "-X", method, ...data, "-w", "\n%{http_code}", `${svc.url}${path}`],
    { stdout: "pipe" },
  )
  const out = await new Response(proc.stdout).text()
  const end = out.lastIndexOf("\n")
  return { status: Number(out.slice(end + 1)), body: JSON.parse(out.slice(0, end)) as any }
}

/** Polls `fn` until it answers `want`, for at most `ms`. */
async function until<T>(fn: () => Promise<T>, want: T, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  let got = await fn()
  while (!Bun.deepEquals(got, want) && Date.now() < deadline) {
    await Bun.sleep(100)
    got = await fn()
  }
  return got
}
const status = async () => (await call(cp, "GET", "/api/nodes/o1")).body.status
/** The control plane's last event about o1's connection. */
const nodeEvent = async () =>
  ((await call(cp, "GET", "/api/events/history")).body as { type: string; name?: string }[]).findLast(
    (e) => e.type === "node" && e.name === "o1",
  )

async function startCp(opts: { dataDir?: string; port?: number } = {}): Promise<Service> {
  const env = {
    DOCKER_HOST: engineHost("a"),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_PROBE_TIMEOUT_MS: "3000",
    SVC_METRICS: "on",
  }
  const svc = await startService(env, { ...opts, host: link.inside.replace(/\.2$/, ".1") })
  running.push(svc)
  return svc
}

const join = (t = token) =>
  inside("POST", "/api/cluster/join", { control_plane_url: cp.url, token: t, name: "o1", connect: "outbound" })

/** Every file's checksum in a volume, read by a throwaway container. */
async function checksums(e: Engine, volume: string): Promise<string> {
  const { Id } = await e.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", "cd /v && find . -type f | sort | xargs sha256sum"],
    Labels: { [TEST_LABEL]: "1" },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  })
  try {
    await e.containerAction(Id, "start")
    await e.waitContainer(Id)
    const lines: string[] = []
    for await (const l of e.logs(Id, { follow: false, tail: "all" })) lines.push(l.line)
    return lines.join("\n")
  } finally {
    await e.removeContainer(Id, { force: true })
  }
}

beforeAll(async () => {
  ns = netnsA()
  engine = realEngine("b")
  cpEngine = realEngine("a")
  await Promise.all([cleanup(engine), cleanup(cpEngine)])
  link = await veth(ns)
  cp = await startCp()
  member = await startService({ DOCKER_HOST: engineHost("b"), SVC_TRANSFER_IMAGE: testImage() }, { netns: ns })
  member2 = await startService({ DOCKER_HOST: engineHost("a"), SVC_TRANSFER_IMAGE: testImage() }, { netns: ns })
  running.push(member, member2)
  serverId = (await inside("GET", "/api/health")).body.server_id
})
afterAll(async () => {
  for (const svc of running) await svc.stop().catch(() => {})
  await link?.remove()
  for (const svc of [member, member2]) rmSync(svc.dataDir, { recursive: true, force: true }) // a restarted member's is not its own
  for (const name of [STACK, `${STACK}-two`])
    await cpEngine.removeVolume(`${name}_data`, { force: true }).catch(() => {})
  await engine.removeVolume(`${STACK}-moved_data`, { force: true }).catch(() => {})
  await Promise.all([cleanup(engine), cleanup(cpEngine)])
  await engine.removeVolume(`${STACK}_data`, { force: true }).catch(() => {})
})

test("a member that nothing can reach joins outbound: listed online, reached through its own connection", async () => {
  expect(
    await fetch(`${member.url}/api/health`).then(
      () => "answered",
      () => "unreachable",
    ),
  ).toBe("unreachable")
  token = (await call(cp, "POST", "/api/cluster/token")).body.token
  const joined = await join()
  expect(joined).toEqual({
    status: 200,
    body: {
      role: "member",
      control_plane_url: cp.url,
      node: { name: "o1", url: `outbound://${serverId}`, status: "online", error: null },
    },
  })
  expect((await call(cp, "POST", "/api/nodes/o1/check")).body).toMatchObject({
    name: "o1",
    status: "online",
    error: null,
    server_id: serverId,
  })
  expect((await call(cp, "GET", "/api/nodes/o1/proxy/api/health")).body.server_id).toBe(serverId)
})

test("the gateway carries JSON with a body and the query, never the Authorization, and 404s an unknown node", async () => {
  const id = await runContainer(engine, "hm-outbound-action", IDLE)
  const res = await call(cp, "POST", `/api/nodes/o1/proxy/api/containers/${id}/action?x=1`, { action: "pause" })
  expect(res).toMatchObject({ status: 200, body: { action: "pause", state: "paused" } })
  expect((await engine.inspectContainer(id)).State.Status).toBe("paused")
  const through = await fetch(`${cp.url}/api/nodes/o1/proxy/api/cluster/verify`, {
    headers: { authorization: `Bearer ${token}` },
  })
  expect(through.status).toBe(401)
  expect((await call(cp, "GET", "/api/nodes/nope/proxy/api/health")).status).toBe(404)
})

test("SSE arrives event by event; a stalled event stream and a flooding log read slowly hold up neither a fast call nor 400 parallel ones, 200 with bodies sent whole or fetched", async () => {
  const res = await fetch(`${cp.url}/api/nodes/o1/proxy/api/events`)
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const events = sseMessages(res)
  const id = await runContainer(engine, "hm-outbound-events", IDLE)
  for (;;) {
    const { value, done } = await events.next()
    if (done || (value.id === id && value.action === "start")) break
  }
  // This stream is never read again while the calls go through beside it.
  const stalled = await fetch(`${cp.url}/api/nodes/o1/proxy/api/events`)
  // A log that floods, read a chunk at a time with pauses: its stream's buffers fill up on the way.
  const noisy = await runContainer(engine, "hm-outbound-noisy", "while true; do seq 1 5000; done")
  const slow = (
    await fetch(`${cp.url}/api/nodes/o1/proxy/api/containers/${noisy}/logs?follow=true&tail=0`)
  ).body!.getReader()
  let slowChunks = 0
  let reading = true
  const slowly = (async () => {
    while (reading && !(await slow.read()).done) {
      slowChunks++
      await Bun.sleep(100)
    }
  })()
  while (slowChunks < 3) await Bun.sleep(50)
  expect((await call(cp, "GET", "/api/nodes/o1/proxy/api/health")).body.server_id).toBe(serverId)
  // Half the bodies are small and go whole with their call, half (80 KiB) are fetched by the node as
  // streams of their own; the node refuses the bad name once it has read the body.
  const posts = Array.from({ length: 200 }, (_, i) =>
    fetch(`${cp.url}/api/nodes/o1/proxy/api/stacks`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        name: `Bad Name ${i}`,
        content: "services: {}\n",
        pad: "x".repeat(i % 2 ? 1024 : 80 * 1024),
      }),
    }).then(async (r) => `${r.status} ${typeof (await r.json()).error?.code}`),
  )
  const gets = Array.from({ length: 200 }, (_, i) =>
    fetch(`${cp.url}/api/nodes/o1/proxy/api/cluster?i=${i}`).then(async (r) => `${r.status} ${(await r.json()).role}`),
  )
  expect(new Set(await Promise.all(gets))).toEqual(new Set(["200 member"]))
  expect(new Set(await Promise.all(posts))).toEqual(new Set(["400 string"]))
  const read = slowChunks
  while (slowChunks < read + 3) await Bun.sleep(50) // the slow reader still gets its log
  const metrics = await (await fetch(`${cp.url}/metrics`)).text()
  expect(metrics).toContain("harbormaster_outbound_nodes_connected 1\n")
  expect(metrics).toContain('harbormaster_outbound_node_connected{node="o1"} 1\n')
  expect(Number(/harbormaster_outbound_streams\{node="o1"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3) // the two event streams and the log at least
  expect(Number(/harbormaster_outbound_bytes_total\{node="o1"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(200 * 50)
  // Small answers came back on the control socket and small bodies went with their call: HTTP exchanges only for the 80 KiB bodies.
  const exchanges = (method: string) =>
    [
      ...metrics.matchAll(
        new RegExp(
          `harbormaster_http_request_duration_seconds_count\\{route="/api/cluster/streams/:id",method="${method}",status="\\d+"\\} (\\d+)`,
          "g",
        ),
      ),
    ].reduce((n, m) => n + Number(m[1]), 0)
  expect(exchanges("POST")).toBeLessThan(10)
  expect(exchanges("GET")).toBeGreaterThanOrEqual(100)
  reading = false
  await slowly
  await slow.cancel()
  await stalled.body?.cancel()
  await events.return(undefined)
  await engine.removeContainer(noisy, { force: true })
}, 60_000)

test("a container shell on the node works over WebSocket through its connection, flood, exit and refusal included", async () => {
  const id = await runContainer(engine, "hm-outbound-shell", IDLE)
  const { type, waitFor, output, closed } = await terminal(
    `${cp.url.replace("http:", "ws:")}/api/nodes/o1/proxy/api/containers/${id}/shell?cols=100&rows=30`,
  )
  type("stty size; echo hi-$((1+2))\n")
  expect((await waitFor(/\b30 100\b/))?.[0]).toBe("30 100")
  expect((await waitFor(/hi-3/))?.[0]).toBe("hi-3")
  type("seq 1 200000; echo flood-$((6*7))\n")
  await waitFor(/flood-42/)
  expect(output().match(/^200000\r?$/m)).not.toBeNull()
  type("exit 7\n")
  const close = await closed
  expect([close.code, close.reason]).toEqual([1000, "exit 7"])
  await engine.containerAction(id, "stop")
  const upgrade = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  }
  const refused = await fetch(`${cp.url}/api/nodes/o1/proxy/api/containers/${id}/shell`, { headers: upgrade })
  expect(refused.status).toBe(409)
  expect((await refused.json()).error.code).toBe("upgrade_refused")
}, 30_000)

test("a copy to the outbound node carries a 32 MiB volume byte for byte", async () => {
  const compose = `services:\n  app:\n    image: ${testImage()}\n    command: ["sh", "-c", "${IDLE}"]\n    volumes: [data:/data]\n    labels: { ${TEST_LABEL}: "1" }\nvolumes:\n  data:\n    labels: { ${TEST_LABEL}: "1" }\n`
  expect((await call(cp, "POST", "/api/stacks", { name: STACK, content: compose })).status).toBe(201)
  const { Id } = await cpEngine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", "head -c 33554432 /dev/urandom > /v/big && echo small > /v/small"],
    Labels: { [TEST_LABEL]: "1" },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: `${STACK}_data`, Target: "/v" }] },
  })
  await cpEngine.containerAction(Id, "start")
  await cpEngine.waitContainer(Id)
  await cpEngine.removeContainer(Id, { force: true })
  const source = await checksums(cpEngine, `${STACK}_data`)
  const copied = await call(cp, "POST", `/api/stacks/${STACK}/copy`, { to: "o1" })
  expect(copied.status).toBe(201)
  expect(await checksums(engine, `${STACK}_data`)).toBe(source)
  expect((await inside("GET", `/api/stacks/${STACK}`)).status).toBe(200)
}, 90_000)

test("a copy and a move between two outbound nodes (each one's export streamed up its own connection) carry the 32 MiB volume byte for byte; the move's source is gone", async () => {
  const joined = await inside(
    "POST",
    "/api/cluster/join",
    { control_plane_url: cp.url, token, name: "o2", connect: "outbound" },
    member2,
  )
  expect(joined.body.node).toMatchObject({ name: "o2", status: "online" })
  const source = await checksums(engine, `${STACK}_data`)
  // o1 -> o2: both reached only through the connections they opened
  expect(
    (await call(cp, "POST", `/api/stacks/${STACK}/copy`, { from: "o1", to: "o2", as: `${STACK}-two` })).status,
  ).toBe(201)
  expect(await checksums(cpEngine, `${STACK}-two_data`)).toBe(source)
  expect((await inside("GET", `/api/stacks/${STACK}-two`, undefined, member2)).status).toBe(200)
  // o2 -> o1 as a move: copied and started there, then the source removed with its volume
  expect(
    (
      await call(cp, "POST", `/api/stacks/${STACK}-two/copy`, {
        from: "o2",
        to: "o1",
        as: `${STACK}-moved`,
        start: true,
      })
    ).status,
  ).toBe(201)
  expect((await inside("GET", `/api/stacks/${STACK}-moved`)).body.status).toBe("running")
  expect((await call(cp, "DELETE", `/api/nodes/o2/proxy/api/stacks/${STACK}-two?volumes=true`)).status).toBe(200)
  expect(await checksums(engine, `${STACK}-moved_data`)).toBe(source)
  expect((await inside("GET", `/api/stacks/${STACK}-two`, undefined, member2)).status).toBe(404)
  expect(
    await cpEngine.inspectVolume(`${STACK}-two_data`).then(
      () => "kept",
      () => "gone",
    ),
  ).toBe("gone")
}, 90_000)

test("a wrong token is refused; a second connection of the same server_id replaces the first", async () => {
  const connect = (t: string) =>
    new WebSocket(`${cp.url.replace("http", "ws")}/api/cluster/connect`, {
      headers: { authorization: `Bearer ${t}`, "x-server-id": serverId },
    } as never)
  const wrong = connect("not-the-token")
  expect(await new Promise((r) => ((wrong.onopen = () => r("open")), (wrong.onerror = () => r("refused"))))).toBe(
    "refused",
  )
  const second = connect(token)
  await new Promise((r) => (second.onopen = r))
  // The member's own connection was replaced: calls now reach whoever holds the second one.
  const answered = fetch(`${cp.url}/api/nodes/o1/proxy/api/health`)
  const open = await new Promise<string>((r) => (second.onmessage = (e) => r(String(e.data))))
  expect(JSON.parse(open)).toMatchObject({ type: "open", method: "GET", path: "/api/health", body: false })
  second.close()
  expect((await answered).status).toBe(502)
  expect(await until(status, "offline")).toBe("offline")
  // The member does not fight for its place; joining again brings it back.
  expect((await join()).body.node.status).toBe("online")
})

test("the control plane killed and restarted: the member comes back online on its own", async () => {
  const { dataDir, port } = cp
  cp.proc.kill("SIGKILL")
  await cp.proc.exited
  running.splice(running.indexOf(cp), 1)
  cp = await startCp({ dataDir, port })
  expect(await until(status, "online")).toBe("online")
  expect((await call(cp, "GET", "/api/nodes/o1/proxy/api/health")).body.server_id).toBe(serverId)
}, 40_000)

test("the link cut and restored: the control plane sees the node offline within seconds, and back once it reconnects", async () => {
  const cpAddress = new URL(cp.url).hostname
  const rule = ["OUTPUT", "-d", cpAddress, "-j", "DROP"]
  const iptables = async (op: string) =>
    expect(await Bun.spawn(["ip", "netns", "exec", ns, "iptables", op, ...rule]).exited).toBe(0)
  await iptables("-I")
  try {
    // Nothing closes: only the heartbeats (every 5 s, 15 s of silence) notice.
    expect(await until(status, "offline", 25_000)).toBe("offline")
    expect(await nodeEvent()).toMatchObject({
      action: "offline",
      level: "error",
      message: expect.stringContaining("no heartbeat"),
    })
  } finally {
    await iptables("-D")
  }
  expect(await until(status, "online", 40_000)).toBe("online")
  expect(await nodeEvent()).toMatchObject({ action: "online", level: "info" })
  const metrics = await (await fetch(`${cp.url}/metrics`)).text()
  expect(Number(/harbormaster_outbound_reconnects_total\{node="o1"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(
    1,
  )
}, 70_000)

test("the member killed mid-upload: the upload fails at once, nothing is written, and the restarted member comes back on its own", async () => {
  let sent = 0
  const slow = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (sent === 0)
        c.enqueue(
          new TextEncoder().encode(`{"name":"hm-half","content":"services:\\n  app:\\n    image: x\\n","pad":"`),
        )
      else if (sent === 8) member.proc.kill("SIGKILL")
      else c.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)))
      sent++
      await Bun.sleep(50)
    },
  })
  const res = await fetch(`${cp.url}/api/nodes/o1/proxy/api/stacks`, {
    method: "POST",
    headers: json,
    body: slow,
    duplex: "half",
  } as RequestInit).catch((err: Error) => err)
  expect(res instanceof Response ? res.status : "cut").toBeOneOf([502, "cut"])
  const { dataDir, port } = member
  await member.proc.exited
  running.splice(running.indexOf(member), 1)
  member = await startService(
    { DOCKER_HOST: engineHost("b"), SVC_TRANSFER_IMAGE: testImage() },
    { netns: ns, dataDir, port },
  )
  running.push(member)
  expect(await until(status, "online")).toBe("online")
  expect((await call(cp, "GET", "/api/nodes/o1/proxy/api/stacks/hm-half")).status).toBe(404)
}, 60_000)

test("a new token closes the connection and the retired one is refused; a removed node's connection closes", async () => {
  const fresh = (await call(cp, "POST", "/api/cluster/token")).body.token
  expect(await until(status, "unauthorized")).toBe("unauthorized")
  expect((await call(cp, "GET", "/api/nodes/o1/proxy/api/health")).status).toBe(502)
  expect((await join(token)).status).toBe(403)
  token = fresh
  expect((await join()).body.node.status).toBe("online")
  expect((await call(cp, "DELETE", "/api/nodes/o1")).status).toBe(200)
  expect((await call(cp, "GET", "/api/nodes/o1/proxy/api/health")).status).toBe(404)
  const outbound = async () =>
    (({ connected, error }) => ({ connected, error }))((await inside("GET", "/api/cluster")).body.outbound)
  expect(await until(outbound, { connected: false, error: "removed" })).toEqual({ connected: false, error: "removed" })
  expect((await inside("DELETE", "/api/cluster/membership")).body).toMatchObject({ left: true })
})
