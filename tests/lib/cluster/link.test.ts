import { expect, test } from "bun:test"
import { backoff, Link } from "#lib/cluster/link.ts"
import type { Peer } from "#lib/http/socket.ts"
import { Tunnels } from "#lib/cluster/tunnel.ts"

test("reconnect delays: full jitter under an exponential step capped at 30 s", () => {
  expect([0, 1, 2, 3].map((n) => backoff(n, () => 1))).toEqual([500, 1000, 2000, 4000])
  expect(backoff(20, () => 1)).toBe(30_000)
  expect(backoff(5, () => 0)).toBe(0)
  expect(backoff(5, () => 0.5)).toBe(8000)
})

test("a link carries calls out on its app in its process: small bodies and answers whole on the control socket, the rest as HTTP exchanges", async () => {
  // A control plane reduced to its tunnel: the control socket and the stream routes.
  const t = new Tunnels()
  const exchanges: string[] = []
  const server = Bun.serve<{ peer?: Peer }, never>({
    port: 0,
    async fetch(req, srv) {
      const url = new URL(req.url)
      if (url.pathname === "/api/cluster/connect")
        return srv.upgrade(req, { data: {} }) ? undefined : new Response(null, { status: 400 })
      const id = url.pathname.split("/").at(-1)!
      exchanges.push(req.method)
      if (req.method === "GET") return t.take(id, "n1")
      await t.answer(id, "n1", req)
      return Response.json({ id })
    },
    websocket: {
      open(ws) {
        ws.data.peer = { send: (d) => ws.send(d), close: (code, reason) => ws.close(code, reason) }
        t.attach("n1", ws.data.peer)
      },
      message: (ws, m) =>
        void (typeof m === "string" ? m === "ping" && ws.send("pong") : t.answerWhole("n1", new Uint8Array(m))),
      close: (ws) => void t.detach("n1", ws.data.peer!),
    },
  })
  const bytes = (s: string) => new TextEncoder().encode(s)
  const app = async (req: Request) => {
    const path = new URL(req.url).pathname
    if (path === "/echo")
      return new Response(await req.arrayBuffer(), { headers: { "x-got": req.headers.get("x-a") ?? "" } })
    return new Response(
      new ReadableStream({
        async start(c) {
          c.enqueue(bytes("data: 1\n\n"))
          await Bun.sleep(100)
          c.enqueue(bytes("data: 2\n\n"))
          c.close()
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  }
  const link = new Link(app)
  const stop = new AbortController()
  const running = link.run(
    async () => ({ controlPlaneUrl: server.url.origin, token: "t", serverId: "n1", local: "http://node.invalid" }),
    stop.signal,
  )
  try {
    expect(await link.connected(5000)).toBe(true)
    const small = await t.fetch("n1", {
      method: "POST",
      path: "/echo",
      headers: new Headers({ "x-a": "b" }),
      body: "hi",
    })
    expect([small.status, small.headers.get("x-got"), await small.text()]).toEqual([200, "b", "hi"])
    expect(exchanges).toEqual([])
    const big = "x".repeat(100 * 1024)
    const echoed = await t.fetch("n1", {
      method: "PUT",
      path: "/echo",
      headers: new Headers(),
      body: new Response(big).body,
    })
    expect((await echoed.text()) === big).toBe(true)
    expect(exchanges.sort()).toEqual(["GET", "POST"]) // the body fetched, the answer posted
    const events = await t.fetch("n1", { method: "GET", path: "/events", headers: new Headers() })
    const reader = events.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: 1\n\n") // before the second event exists
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: 2\n\n")
    expect((await reader.read()).done).toBe(true)
  } finally {
    stop.abort()
    await running
    server.stop(true)
  }
})
