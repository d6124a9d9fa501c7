import { expect, test } from "bun:test"
import type { Peer } from "#lib/http/socket.ts"
import {
  CLOSE,
  frame,
  outboundId,
  outboundUrl,
  packHeaders,
  Tunnels,
  unframe,
  unpackHeaders,
} from "#lib/cluster/tunnel.ts"

function peer() {
  const sent: string[] = []
  const all: (string | Uint8Array)[] = []
  const closed: [number?, string?][] = []
  const p: Peer = {
    send: (d) => (all.push(d), typeof d === "string" && sent.push(d), 0),
    close: (code, reason) => void closed.push([code, reason]),
  }
  /** The last message sent: a JSON head, or a head and the body sent whole with it. */
  const last = () => {
    const m = all.at(-1)!
    return typeof m === "string" ? { head: JSON.parse(m), body: undefined } : unframe(m)!
  }
  return { p, sent, closed, last, id: () => last().head.id as string }
}
/** Lets a call read its small body and send its open message. */
const sent = () => Bun.sleep(0)
const answerOf = (status: number, headers: HeadersInit, body: string) =>
  new Request("http://cp/api/cluster/streams/x", {
    method: "POST",
    body,
    headers: { "x-hm-status": String(status), "x-hm-headers": packHeaders(new Headers(headers)) },
  })

test("an outbound node's URL names its server and nothing to dial", () => {
  expect(outboundUrl("ab-12")).toBe("outbound://ab-12")
  expect(outboundId("outbound://ab-12")).toBe("ab-12")
  expect(outboundId("http://10.0.0.2:8080")).toBeUndefined()
  const h = new Headers({ "x-a": "é ü", "content-length": "3" })
  expect([...unpackHeaders(packHeaders(h))]).toEqual([...h])
})

test("a call is a stream: the node is told its id, fetches the request once, posts the answer, which the caller reads", async () => {
  const t = new Tunnels()
  const node = peer()
  t.attach("s1", node.p)
  const body = new Response("hello").body
  const res = t.fetch("s1", {
    method: "PUT",
    path: "/api/x?q=1",
    headers: new Headers({ "x-length": "unknown" }),
    body,
  })
  await sent()
  const open = node.last().head
  expect(open).toEqual({
    type: "open",
    id: node.id(),
    method: "PUT",
    path: "/api/x?q=1",
    headers: expect.any(String),
    body: true,
  })
  expect(unpackHeaders(open.headers).get("x-length")).toBe("unknown")
  expect(() => t.take(node.id(), "s2")).toThrow("no such stream")
  expect(() => t.answer(node.id(), "s1", answerOf(200, {}, ""))).toThrow("not fetched yet")
  expect(await t.take(node.id(), "s1").text()).toBe("hello")
  expect(() => t.take(node.id(), "s1")).toThrow("fetched already")
  expect(t.counters.get("s1")?.streams).toBe(1)
  const done = t.answer(node.id(), "s1", answerOf(201, { "x-node": "yes" }, "answered"))
  const answer = await res
  expect([answer.status, answer.headers.get("x-node"), await answer.text()]).toEqual([201, "yes", "answered"])
  await done
  expect(t.counters.get("s1")).toEqual({ bytes: 8, streams: 0, reconnects: 0 })
})

test("a call without a body is whole in its message: nothing to fetch, the answer awaited", async () => {
  const t = new Tunnels()
  const node = peer()
  t.attach("s1", node.p)
  const res = t.fetch("s1", { method: "GET", path: "/api/health", headers: new Headers() })
  await sent()
  expect(node.last()).toEqual({
    head: expect.objectContaining({ type: "open", method: "GET", path: "/api/health", body: false }),
    body: undefined,
  })
  expect(() => t.take(node.id(), "s1")).toThrow("fetched already")
  void t.answer(node.id(), "s1", answerOf(200, {}, "ok"))
  expect(await (await res).text()).toBe("ok")
})

test("a small body is sent whole with its head, a JSON call's or one with a Content-Length up to 64 KiB; a larger one waits to be fetched", async () => {
  const t = new Tunnels()
  const node = peer()
  t.attach("s1", node.p)
  void t.fetch("s1", {
    method: "POST",
    path: "/api/stacks",
    headers: new Headers({ "content-type": "application/json" }),
    body: '{"name":"a"}',
  })
  await sent()
  expect(node.last().head).toMatchObject({ type: "open", method: "POST", body: false })
  expect(new TextDecoder().decode(node.last().body)).toBe('{"name":"a"}')
  expect(() => t.take(node.id(), "s1")).toThrow("fetched already")
  void t.fetch("s1", {
    method: "PUT",
    path: "/x",
    headers: new Headers({ "content-length": "3" }),
    body: new Response("abc").body,
  })
  await sent()
  expect(new TextDecoder().decode(node.last().body)).toBe("abc")
  const big = "x".repeat(64 * 1024 + 1)
  void t.fetch("s1", {
    method: "PUT",
    path: "/x",
    headers: new Headers({ "content-length": String(big.length) }),
    body: new Response(big).body,
  })
  await sent()
  expect(node.last()).toMatchObject({ head: { body: true }, body: undefined })
  expect((await t.take(node.id(), "s1").text()).length).toBe(big.length)
})

test("a node not connected, a control socket that closes, an aborted call: each call fails, nothing stays open", async () => {
  const t = new Tunnels()
  await expect(t.fetch("s1", { method: "GET", path: "/", headers: new Headers() })).rejects.toThrow("not connected")
  const node = peer()
  t.attach("s1", node.p)
  const pending = t.fetch("s1", { method: "GET", path: "/", headers: new Headers() })
  await sent()
  t.detach("s1", node.p)
  await expect(pending).rejects.toThrow("connection closed")
  t.attach("s1", node.p)
  const abort = new AbortController()
  const aborted = t.fetch("s1", { method: "GET", path: "/", headers: new Headers(), signal: abort.signal })
  await sent()
  abort.abort(new Error("gone"))
  await expect(aborted).rejects.toThrow("gone")
  expect(() => t.take(node.id(), "s1")).toThrow("no such stream")
})

test("a second connection of a server replaces the first; the first's late close changes nothing; a new token closes all", () => {
  const t = new Tunnels()
  const [a, b] = [peer(), peer()]
  t.attach("s1", a.p)
  t.attach("s1", b.p)
  expect(a.closed).toEqual([[CLOSE.replaced, "replaced"]])
  expect(t.detach("s1", a.p)).toBe(false)
  expect(t.connected("s1")).toBe(true)
  expect(t.counters.get("s1")?.reconnects).toBe(1)
  t.closeAll(CLOSE.unauthorized, "unauthorized")
  expect([t.connected("s1"), b.closed]).toEqual([false, [[CLOSE.unauthorized, "unauthorized"]]])
  expect(t.status("s1").status).toBe("unauthorized")
  t.attach("s1", a.p)
  expect(t.status("s1")).toEqual({ status: "online", error: null })
  expect(t.status("s2")).toEqual({ status: "offline", error: "the node is not connected" })
})

test("a small answer comes whole on the control socket: one frame, its head and bytes; a frame for no stream of the node is dropped", async () => {
  const t = new Tunnels()
  const node = peer()
  t.attach("s1", node.p)
  const res = t.fetch("s1", { method: "GET", path: "/api/health", headers: new Headers() })
  await sent()
  const bytes = frame(
    { id: node.id(), status: 201, headers: [["content-type", "application/json"]] },
    new TextEncoder().encode('{"ok":true}'),
  )
  expect(unframe(bytes.subarray(0, 3))).toBeUndefined()
  t.answerWhole("s2", bytes)
  t.answerWhole("s1", bytes)
  const answer = await res
  expect([answer.status, answer.headers.get("content-type"), await answer.json()]).toEqual([
    201,
    "application/json",
    { ok: true },
  ])
  expect(t.counters.get("s1")).toEqual({ bytes: 11, streams: 0, reconnects: 0 })
  t.answerWhole("s1", bytes) // answered already: nothing happens
  const head = t.fetch("s1", { method: "HEAD", path: "/api/health", headers: new Headers() })
  await sent()
  t.answerWhole("s1", frame({ id: node.id(), status: 200, headers: [] }, new TextEncoder().encode("no body for HEAD")))
  expect(await (await head).text()).toBe("")
})

test("a WebSocket stream tells the node the headers to open its own socket with (the gateway's proof)", async () => {
  const t = new Tunnels()
  const node = peer()
  t.attach("s1", node.p)
  const socket = t.socket("s1", "/api/containers/web/shell?cols=80", new Headers({ "x-hm-proof": "v1.p.s" }))
  const open = JSON.parse(node.sent[0]!)
  expect(open).toEqual({
    type: "socket",
    id: node.id(),
    path: "/api/containers/web/shell?cols=80",
    headers: expect.any(String),
  })
  expect(unpackHeaders(open.headers).get("x-hm-proof")).toBe("v1.p.s")
  const failed = new Promise((r) => (socket.onerror = r))
  t.detach("s1", node.p)
  expect(await failed).toMatchObject({ message: "the node's connection closed" })
})
