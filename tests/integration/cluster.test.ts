// A cluster of real processes on loopback: a control plane and two members (sharing the private
// engine), joined, probed, re-keyed, stopped and replaced; and the gateway carrying JSON, SSE, a
// container shell over WebSocket and 1 GiB uploads to a node.
import { afterAll, beforeAll, expect, test } from "bun:test"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer } from "../support/engine.ts"
import { fakeNode, generated, type FakeNode } from "../support/node.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"
import { terminal } from "../support/terminal.ts"

let engine: Engine
let cp: Service
let m1: Service
let m2: Service
let token: string
const running: Service[] = []
const json = { "content-type": "application/json" }
const IDLE = "trap 'exit 0' TERM; while true; do sleep 0.1; done"
const env = () => ({ DOCKER_HOST: engineHost(), SVC_PROBE_TIMEOUT_MS: "2000" })

async function start(opts: { port?: number } = {}): Promise<Service> {
  const svc = await startService(env(), opts)
  running.push(svc)
  return svc
}
const call = async (svc: Service, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: body === undefined ? {} : json,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}
const statuses = async () =>
  Object.fromEntries(
    (await call(cp, "POST", "/api/nodes/check")).body.map((n: { name: string; status: string }) => [n.name, n.status]),
  )

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  ;[cp, m1, m2] = await Promise.all([start(), start(), start()])
})
afterAll(async () => {
  for (const svc of running) await svc.stop()
  await cleanup(engine)
})

test("members join (by peer address and by advertised URL), are listed and probed online", async () => {
  token = (await call(cp, "POST", "/api/cluster/token")).body.token
  const j1 = await call(m1, "POST", "/api/cluster/join", { control_plane_url: cp.url, token, name: "m1" })
  expect(j1).toEqual({
    status: 200,
    body: {
      role: "member",
      control_plane_url: cp.url,
      node: { name: "m1", url: m1.url, status: "online", error: null },
    },
  })
  const j2 = await call(m2, "POST", "/api/cluster/join", {
    control_plane_url: cp.url,
    token,
    name: "m2",
    advertise: `${m2.url}/`,
  })
  expect(j2.body.node).toEqual({ name: "m2", url: m2.url, status: "online", error: null })
  expect((await call(cp, "GET", "/api/cluster")).body).toMatchObject({ role: "control-plane", nodes: 2 })
  expect((await call(m1, "GET", "/api/cluster")).body).toMatchObject({
    role: "member",
    control_plane_url: cp.url,
    name: "m1",
  })
  expect((await call(m1, "GET", "/api/cluster/token")).body.token).toBe(token)
  const list = (await call(cp, "GET", "/api/nodes")).body
  expect(list.map((n: { name: string; status: string }) => [n.name, n.status])).toEqual([
    ["m1", "online"],
    ["m2", "online"],
  ])
  expect(list[0].server_id).toBe((await call(m1, "GET", "/api/health")).body.server_id)
  expect(await statuses()).toEqual({ m1: "online", m2: "online" })
  expect(
    (
      await call(cp, "POST", "/api/cluster/register", {
        token,
        server_id: crypto.randomUUID(),
        name: "m1",
        advertise: m2.url,
      })
    ).status,
  ).toBe(409)
})

test("the gateway carries a JSON call with a body to the node, and never its Authorization", async () => {
  const id = await runContainer(engine, "hm-cluster-action", IDLE)
  const res = await call(cp, "POST", `/api/nodes/m1/proxy/api/containers/${id}/action?x=1`, { action: "pause" })
  expect(res).toMatchObject({ status: 200, body: { action: "pause", state: "paused" } })
  expect((await engine.inspectContainer(id)).State.Status).toBe("paused")
  const bearer = { authorization: `Bearer ${token}` }
  expect((await fetch(`${m1.url}/api/cluster/verify`, { headers: bearer })).status).toBe(200)
  const through = await fetch(`${cp.url}/api/nodes/m1/proxy/api/cluster/verify`, { headers: bearer })
  expect(through.status).toBe(401)
  expect((await call(cp, "GET", "/api/nodes/nope/proxy/api/health")).status).toBe(404)
})

test("the node's event stream arrives through the gateway event by event", async () => {
  const res = await fetch(`${cp.url}/api/nodes/m2/proxy/api/events`)
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const events = sseMessages(res)
  const next = async (id: string, action: string) => {
    for (;;) {
      const { value, done } = await events.next()
      if (done || (value.id === id && value.action === action)) return value
    }
  }
  const id = await runContainer(engine, "hm-cluster-events", IDLE)
  expect(await next(id, "start")).toMatchObject({ type: "container", action: "start", id })
  // the stop happens only after the start was read: nothing waits for the stream to end
  await engine.containerAction(id, "stop")
  expect(await next(id, "die")).toMatchObject({ type: "container", action: "die", id })
  await events.return(undefined)
}, 30_000)

test("a container shell on a node works over WebSocket through the gateway, flood and exit included", async () => {
  const id = await runContainer(engine, "hm-cluster-shell", IDLE)
  const { type, waitFor, output, closed } = await terminal(
    `${cp.url.replace("http:", "ws:")}/api/nodes/m1/proxy/api/containers/${id}/shell?cols=100&rows=30`,
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
  // the node's refusal of a shell into a stopped container comes back as the node gave it
  await engine.containerAction(id, "stop")
  const upgrade = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  }
  const refused = await fetch(`${cp.url}/api/nodes/m1/proxy/api/containers/${id}/shell`, { headers: upgrade })
  expect(refused.status).toBe(409)
  expect((await refused.json()).error.code).toBe("upgrade_refused")
}, 30_000)

test("1 GiB uploads stream through the gateway byte for byte, chunked kept chunked, Content-Length replayed", async () => {
  const node: FakeNode = fakeNode({ token })
  try {
    const reg = await call(cp, "POST", "/api/cluster/register", {
      token,
      server_id: node.serverId,
      name: "sink",
      advertise: node.url,
    })
    expect(reg.body).toMatchObject({ name: "sink", status: "online" })
    const size = 1024 ** 3
    const data = generated(size)
    const upload = async (headers: Record<string, string>) => {
      const res = await fetch(`${cp.url}/api/nodes/sink/proxy/upload?part=1`, {
        method: "PUT",
        body: data.stream(),
        headers: { authorization: `Bearer ${token}`, ...headers },
        duplex: "half",
      } as RequestInit)
      expect(res.status).toBe(200)
      return res.json()
    }
    const chunked = await upload({ "content-type": "application/octet-stream" })
    expect(chunked).toMatchObject({
      method: "PUT",
      path: "/upload?part=1",
      bytes: size,
      sha256: data.sha256,
      headers: { "transfer-encoding": "chunked" },
    })
    expect(chunked.headers["content-length"]).toBeUndefined()
    const sized = await upload({ "content-type": "application/octet-stream", "content-length": String(size) })
    expect(sized).toMatchObject({ bytes: size, sha256: data.sha256, headers: { "content-length": String(size) } })
    expect(sized.headers["transfer-encoding"]).toBeUndefined()
    for (const seen of node.seen) expect(seen.headers.authorization).toBeUndefined()
  } finally {
    node.stop()
    await fetch(`${cp.url}/api/nodes/sink`, { method: "DELETE" })
  }
}, 180_000)

test("a new token turns the members unauthorized until they join again with it", async () => {
  const fresh = (await call(cp, "POST", "/api/cluster/token")).body.token
  expect(fresh).not.toBe(token)
  expect(await statuses()).toEqual({ m1: "unauthorized", m2: "unauthorized" })
  for (const [m, name] of [
    [m1, "m1"],
    [m2, "m2"],
  ] as const)
    expect(
      (
        await call(m, "POST", "/api/cluster/join", {
          control_plane_url: cp.url,
          token: fresh,
          name,
          ...(m === m2 ? { advertise: `${m2.url}/` } : {}),
        })
      ).status,
    ).toBe(200)
  token = fresh
  expect(await statuses()).toEqual({ m1: "online", m2: "online" })
})

test("a stopped member is offline; another server on its old address is not online", async () => {
  const { port } = m1
  await m1.stop()
  running.splice(running.indexOf(m1), 1)
  expect(await statuses()).toEqual({ m1: "offline", m2: "online" })
  const impostor = await start({ port })
  const m1Entry = (await call(cp, "POST", "/api/nodes/m1/check")).body
  expect(m1Entry.status).toBe("unknown")
  expect(m1Entry.error).toContain(`answered as server ${(await call(impostor, "GET", "/api/health")).body.server_id}`)
  expect((await call(cp, "DELETE", "/api/nodes/m1")).status).toBe(200)
  expect((await call(cp, "GET", "/api/nodes/m1/proxy/api/health")).status).toBe(404)
})

test("a member leaves while the control plane is down: it forgets locally and says the entry stayed", async () => {
  await cp.stop()
  running.splice(running.indexOf(cp), 1)
  const left = await call(m2, "DELETE", "/api/cluster/membership")
  expect(left.status).toBe(200)
  expect(left.body).toMatchObject({ left: true, removed: false })
  expect(left.body.error).toContain("did not answer")
  expect((await call(m2, "GET", "/api/cluster")).body.role).toBe("none")
  expect((await call(m2, "GET", "/api/cluster/token")).status).toBe(404)
})
