import { afterEach, expect, test } from "bun:test"
import type { NodeEntry } from "#lib/cluster/nodes.ts"
import { bridge, forward, targetUrl } from "#lib/cluster/gateway.ts"
import { fakeNode, generated, type FakeNode } from "../../support/node.ts"
import { freePort } from "../../support/service.ts"

let node: FakeNode | undefined
afterEach(() => node?.stop())

const entry = (url: string): NodeEntry => ({
  name: "n1",
  url,
  status: "online",
  error: null,
  server_id: "s",
  registered_at: "",
  checked_at: null,
})
const gateway = (path: string) => `http://127.0.0.1:8080/api/nodes/n1/proxy${path}`

test("the target is the node URL plus the path after /proxy, with the query string", () => {
  const n = entry("http://10.0.0.1:8081")
  expect(targetUrl(n, gateway("/api/stacks/web/env?x=1&y=%2F"))).toBe(
    "http://10.0.0.1:8081/api/stacks/web/env?x=1&y=%2F",
  )
  expect(targetUrl(n, gateway("/a%20b/"))).toBe("http://10.0.0.1:8081/a%20b/")
  expect(targetUrl(n, "http://127.0.0.1:8080/api/nodes/n1/proxy")).toBe("http://10.0.0.1:8081/")
})

test("method, body, status and headers pass; Authorization, cookies, Origin and hop-by-hop headers stay behind, and a node's Set-Cookie does not come back", async () => {
  node = fakeNode()
  const req = new Request(gateway("/created?q=1"), {
    method: "PATCH",
    body: JSON.stringify({ a: 1 }),
    headers: {
      "content-type": "application/json",
      authorization: "Bearer secret",
      cookie: "hm_session=s3ssion",
      origin: "http://127.0.0.1:8080",
      connection: "keep-alive, x-private",
      "x-private": "1",
      "x-kept": "yes",
      te: "trailers",
      expect: "100-continue",
    },
  })
  const res = await forward(entry(node.url), req)
  expect(res.status).toBe(201)
  expect(res.headers.get("x-node")).toBe("fake")
  expect(res.headers.get("set-cookie")).toBeNull()
  const seen = await res.json()
  expect(seen).toMatchObject({
    method: "PATCH",
    path: "/created?q=1",
    bytes: 7,
    headers: { "content-type": "application/json", "content-length": "7", "x-kept": "yes" },
  })
  for (const h of ["authorization", "cookie", "origin", "x-private", "te", "expect"])
    expect(seen.headers[h]).toBeUndefined()
})

test("a client's X-Hm-Proof never reaches the node; the gateway's own, made for the node's method, path and server_id, does", async () => {
  node = fakeNode()
  const req = () =>
    new Request(gateway("/api/stacks/web?volumes=true"), {
      method: "DELETE",
      headers: { "x-hm-proof": "v1.made-up.by-the-client" },
    })
  const unsigned = await (await forward(entry(node.url), req())).json()
  expect(unsigned.headers["x-hm-proof"]).toBeUndefined()
  const signed = await (
    await forward(entry(node.url), req(), (method, path, server) => `${method} ${path} ${server}`)
  ).json()
  expect(signed.headers["x-hm-proof"]).toBe("DELETE /api/stacks/web?volumes=true s")
})

test("a streamed body without a length arrives chunked and whole", async () => {
  node = fakeNode()
  const data = generated(5 * 1024 * 1024 + 17)
  const res = await forward(
    entry(node.url),
    new Request(gateway("/up"), { method: "POST", body: data.stream(), duplex: "half" } as RequestInit),
  )
  const seen = await res.json()
  expect(seen).toMatchObject({
    bytes: 5 * 1024 * 1024 + 17,
    sha256: data.sha256,
    headers: { "transfer-encoding": "chunked" },
  })
  expect(seen.headers["content-length"]).toBeUndefined()
})

test("SSE arrives event by event, not buffered", async () => {
  node = fakeNode()
  const res = await forward(entry(node.url), new Request(gateway("/sse")))
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const reader = res.body!.getReader()
  const next = async () => new TextDecoder().decode((await reader.read()).value)
  expect(await next()).toBe(": open\n\n")
  node.emit({ n: 1 })
  expect(await next()).toBe('data: {"n":1}\n\n')
  node.emit({ n: 2 })
  expect(await next()).toBe('data: {"n":2}\n\n')
  await reader.cancel()
})

test("a node that does not answer is a 502 naming it", async () => {
  const err = await forward(entry(`http://127.0.0.1:${await freePort()}`), new Request(gateway("/x"))).catch((e) => e)
  expect(err).toMatchObject({ kind: "upstream", code: "node_unreachable" })
  expect(err.message).toContain('node "n1"')
})

test("a WebSocket is bridged both ways; a closed node socket closes the client", async () => {
  node = fakeNode()
  const session = await bridge(entry(node.url), gateway("/echo"))
  await Bun.sleep(50) // the node greets before the client's socket is open: the greeting waits for it
  const got: (string | Uint8Array)[] = []
  let closed: number | undefined
  session.open({ send: (d) => (got.push(d), 1), close: (code) => void (closed = code) })
  session.message("hello")
  session.message(new Uint8Array([1, 2, 3]))
  while (got.length < 3) await Bun.sleep(5)
  expect(got.slice(0, 2)).toEqual(["hi", "hello"])
  expect([...(got[2] as Uint8Array)]).toEqual([1, 2, 3])
  node.stop()
  node = undefined
  while (closed === undefined) await Bun.sleep(5)
  expect(closed).toBe(1001) // the node's "going away", passed on
})

test("a WebSocket to a node that does not answer fails before the upgrade with 502", async () => {
  const err = await bridge(entry(`http://127.0.0.1:${await freePort()}`), gateway("/echo")).catch((e) => e)
  expect(err).toMatchObject({ kind: "upstream", code: "node_unreachable" })
})

test("a client writing faster than the node reads is paused until the node's queue drains", async () => {
  node = fakeNode()
  const session = await bridge(entry(node.url), gateway("/sink"))
  const flow: string[] = []
  session.open({
    send: () => 1,
    close: () => {},
    pause: () => void flow.push("pause"),
    resume: () => void flow.push("resume"),
  })
  const mib = new Uint8Array(1 << 20)
  for (let i = 0; i < 64 && !flow.includes("pause"); i++) session.message(mib)
  expect(flow).toEqual(["pause"])
  while (!flow.includes("resume")) await node.release()
  expect(flow).toEqual(["pause", "resume"])
  session.close()
})

test("a compressed answer comes back compressed, as the node sent it", async () => {
  const gz = Bun.gzipSync(new TextEncoder().encode("hello ".repeat(1000)))
  const upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(gz, { headers: { "content-encoding": "gzip", "content-type": "text/plain" } }),
  })
  try {
    const res = await forward(
      entry(`http://127.0.0.1:${upstream.port}`),
      new Request(gateway("/gz"), { headers: { "accept-encoding": "gzip" } }),
    )
    expect(res.headers.get("content-encoding")).toBe("gzip")
    const back = await res.arrayBuffer()
    expect(new Uint8Array(back)).toEqual(gz)
  } finally {
    upstream.stop(true)
  }
})
