import { afterEach, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { NodeClient, NodeUnreachable } from "#lib/cluster/node-client.ts"
import { DomainError } from "#lib/errors/errors.ts"

const servers: { stop(force?: boolean): void }[] = []
afterEach(() => servers.splice(0).forEach((s) => s.stop(true)))

/** A peer on loopback: every request answered by `fetch`. */
function peer(fetch: (req: Request) => Response | Promise<Response>): string {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch })
  servers.push(server)
  return `http://127.0.0.1:${server.port}`
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable(),
    (e: unknown) => e as DomainError,
  )

test("the token goes as a bearer and a JSON body as JSON; the answer's JSON comes back", async () => {
  const url = peer(async (req) =>
    Response.json({
      auth: req.headers.get("authorization"),
      type: req.headers.get("content-type"),
      method: req.method,
      body: await req.json(),
    }),
  )
  const answer = await new NodeClient(url, { token: "t-123" }).json("/x", { method: "POST", json: { a: 1 } })
  expect(answer).toEqual({ auth: "Bearer t-123", type: "application/json", method: "POST", body: { a: 1 } })
})

test("without a token no Authorization header is sent", async () => {
  const url = peer((req) => Response.json({ auth: req.headers.get("authorization") }))
  expect(await new NodeClient(url).json("/x")).toEqual({ auth: null })
})

test("a peer that does not answer in time is a 502 naming the deadline, never the token", async () => {
  const url = peer(() => new Promise<Response>(() => {}))
  const started = performance.now()
  const err = await rejection(
    new NodeClient(url, { token: "secret-token", unreachableCode: "server_unreachable" }).fetch("/x", {
      timeoutMs: 100,
    }),
  )
  expect(performance.now() - started).toBeLessThan(2000)
  expect(err).toBeInstanceOf(NodeUnreachable)
  expect(err).toMatchObject({ kind: "upstream", code: "server_unreachable", reason: "no answer within 100 ms" })
  expect(err.message).toBe(`${url} did not answer: no answer within 100 ms`)
  expect(err.message).not.toContain("secret-token")
})

test("a closed port is a 502 saying why", async () => {
  const url = peer(() => new Response())
  servers.pop()!.stop(true)
  const err = await rejection(new NodeClient(url, { who: "node n1" }).fetch("/x", { timeoutMs: 1000 }))
  expect(err).toMatchObject({ kind: "upstream", code: "node_unreachable" })
  expect(err.message).toStartWith("node n1 did not answer: ")
})

test("the peer's error envelope becomes this server's error: the kind of a 4xx kept, a 5xx upstream, a body without one its status's kind", async () => {
  const url = peer((req) => {
    const path = new URL(req.url).pathname
    if (path === "/409")
      return Response.json({ error: { code: "name_taken", message: "the name is taken" } }, { status: 409 })
    if (path === "/500")
      return Response.json({ error: { code: "engine_error", message: "the engine failed" } }, { status: 500 })
    return new Response("not json", { status: 404 })
  })
  const node = new NodeClient(url, { who: "node n1" })
  expect(await rejection(node.json("/409"))).toMatchObject({
    kind: "conflict",
    code: "name_taken",
    message: "node n1: the name is taken",
  })
  expect(await rejection(node.json("/500"))).toMatchObject({
    kind: "upstream",
    code: "engine_error",
    message: "node n1: the engine failed",
  })
  expect(await rejection(node.json("/404"))).toMatchObject({
    kind: "not_found",
    code: "node_error",
    message: "node n1: HTTP 404",
  })
})

test("a body streams to the peer and back, whole and in order", async () => {
  const url = peer(async (req) => {
    const data = new Uint8Array(await req.arrayBuffer())
    const digest = createHash("sha256").update(data).digest("hex")
    return new Response(new Blob([data]).stream(), {
      headers: { "x-bytes": String(data.length), "x-sha256": digest, "x-type": req.headers.get("content-type") ?? "" },
    })
  })
  const size = 3 * 1024 * 1024 + 5
  const chunk = (i: number) => new Uint8Array(64 * 1024).fill(i % 251)
  let sent = 0
  const hash = createHash("sha256")
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= size) return c.close()
      const part = chunk(sent).subarray(0, Math.min(64 * 1024, size - sent))
      hash.update(part)
      sent += part.length
      c.enqueue(part)
    },
  })
  const res = await new NodeClient(url, { token: "t" }).ok("/tar", {
    method: "POST",
    stream: body,
    headers: { "content-type": "application/x-tar" },
  })
  expect(res.headers.get("x-bytes")).toBe(String(size))
  expect(res.headers.get("x-type")).toBe("application/x-tar")
  const digest = hash.digest("hex")
  expect(res.headers.get("x-sha256")).toBe(digest)
  expect(
    createHash("sha256")
      .update(new Uint8Array(await res.arrayBuffer()))
      .digest("hex"),
  ).toBe(digest)
})

test("a call ends when its signal is aborted, as a 502", async () => {
  const url = peer(() => new Promise<Response>(() => {}))
  const stop = new AbortController()
  setTimeout(() => stop.abort(), 50)
  expect(await rejection(new NodeClient(url).fetch("/x", { signal: stop.signal }))).toMatchObject({ kind: "upstream" })
})
