// A stand-in node on loopback for probe and gateway tests: answers /api/health with its server_id
// and /api/cluster/verify like the real service, streams SSE on /sse as the test emits, echoes
// WebSockets on /echo (after a greeting), holds the ones on /sink unread until released, and digests every other
// request body as it streams in.
import type { Server, ServerWebSocket } from "bun"

export interface Seen {
  method: string
  path: string
  headers: Record<string, string>
  bytes: number
  sha256: string
}

export interface FakeNode {
  url: string
  port: number
  serverId: string
  token: string
  seen: Seen[]
  /** Starts reading the /sink sockets; returns the bytes they had been sent. */
  release(): Promise<number>
  /** How many /sse streams are open. */
  openStreams(): number
  /** Sends one SSE message to every open /sse stream. */
  emit(data: unknown): void
  stop(): void
}

export function fakeNode(opts: { serverId?: string; token?: string; port?: number; hang?: boolean } = {}): FakeNode {
  const serverId = opts.serverId ?? crypto.randomUUID()
  const token = opts.token ?? "node-token"
  const seen: Seen[] = []
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>()
  const sinks = new Map<ServerWebSocket<{ sink: boolean }>, number>()
  const server: Server<{ sink: boolean }> = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    idleTimeout: 0,
    async fetch(req, srv) {
      if (opts.hang) return new Promise<Response>(() => {})
      const url = new URL(req.url)
      if (url.pathname === "/api/health") return Response.json({ status: "ok", server_id: serverId })
      if (url.pathname === "/api/cluster/verify")
        return req.headers.get("authorization") === `Bearer ${token}`
          ? Response.json({ server_id: serverId })
          : Response.json({ error: { code: "unauthorized" } }, { status: 401 })
      if (
        (url.pathname === "/echo" || url.pathname === "/sink") &&
        srv.upgrade(req, { data: { sink: url.pathname === "/sink" } })
      )
        return undefined as unknown as Response
      if (url.pathname === "/sse") {
        let controller: ReadableStreamDefaultController<Uint8Array>
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            controller = c
            streams.add(c)
            c.enqueue(new TextEncoder().encode(": open\n\n")) // Bun sends the headers with the first bytes
          },
          cancel() {
            streams.delete(controller)
          },
        })
        return new Response(body, { headers: { "content-type": "text/event-stream" } })
      }
      const hash = new Bun.CryptoHasher("sha256")
      let bytes = 0
      for await (const chunk of (req.body ?? []) as AsyncIterable<Uint8Array>) {
        hash.update(chunk)
        bytes += chunk.length
      }
      const entry = {
        method: req.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(req.headers),
        bytes,
        sha256: hash.digest("hex"),
      }
      seen.push(entry)
      return Response.json(entry, {
        status: url.pathname === "/created" ? 201 : 200,
        headers: { "x-node": "fake", "set-cookie": "hm_session=the-nodes-own; Path=/" },
      })
    },
    websocket: {
      open(ws) {
        if (!ws.data.sink) return void ws.send("hi") // a greeting, as a shell's prompt comes unasked
        sinks.set(ws, 0)
        ws.pause()
      },
      message(ws, data) {
        if (ws.data.sink) sinks.set(ws, sinks.get(ws)! + data.length)
        else ws.send(data)
      },
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    serverId,
    token,
    seen,
    async release() {
      for (const ws of sinks.keys()) ws.resume()
      await Bun.sleep(50)
      return [...sinks.values()].reduce((a, b) => a + b, 0)
    },
    openStreams: () => streams.size,
    emit(data) {
      const bytes = new TextEncoder().encode(`data: ${JSON.stringify(data)}\n\n`)
      for (const c of streams) c.enqueue(bytes)
    },
    stop: () => void server.stop(true),
  }
}

/** `size` bytes of generated data, streamed a MiB at a time (never held whole), and their sha256. */
export function generated(size: number): { stream: () => ReadableStream<Uint8Array>; sha256: string } {
  const chunk = (i: number) => new Uint8Array(Math.min(1 << 20, size - i * (1 << 20))).fill(i % 251)
  const hash = new Bun.CryptoHasher("sha256")
  for (let i = 0; i * (1 << 20) < size; i++) hash.update(chunk(i))
  return {
    sha256: hash.digest("hex"),
    stream: () => {
      let i = 0
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (i * (1 << 20) >= size) return c.close()
          c.enqueue(chunk(i++))
        },
      })
    },
  }
}
