// The control plane's end of outbound nodes: a node behind NAT holds a control WebSocket it opened
// (GET /api/cluster/connect), and every call to it is a stream of its own. The control plane sends
// `{"type":"open","id","method","path","headers","body"}` on the control socket; when the request
// has a body the node fetches it (GET /api/cluster/streams/{id}, streamed), and it posts the answer
// (POST /api/cluster/streams/{id}: status and headers in x-hm-* headers, the body streamed). Each
// stream is its own HTTP exchange with its own TCP flow control, so a slow reader holds up nothing
// else. A body that is small and whole at once travels on the control socket instead, as one binary
// message (`frame`): a request's in its open message (a JSON call), an answer (JSON, an error) back.
// A WebSocket is `{"type":"socket","id","path","headers"}`: the node opens its own API's socket with
// those headers, then one to /api/cluster/streams/{id} that is bridged to the caller's (or posts the
// status its API refused the upgrade with). One control socket per server_id: a second one replaces
// the first.
import type { Peer, SocketSession } from "../http/socket.ts"
import { conflict, notFound } from "../errors/errors.ts"

/** The URL a registry entry of an outbound node holds: how it is reached, not an address to dial. */
export const outboundUrl = (serverId: string) => `outbound://${serverId}`
export const outboundId = (url: string) => /^outbound:\/\/([A-Za-z0-9-]+)$/.exec(url)?.[1]

/** Close codes of the control socket, read by the node. */
export const CLOSE = { replaced: 4000, unauthorized: 4001, removed: 4004 } as const

/** How long a node has to fetch a stream it was told to open. */
const DIAL_MS = 10_000
/** Null-body statuses: their answer has no body even when the node streamed one. */
const NO_BODY = new Set([101, 204, 205, 304])

export interface StreamRequest {
  method: string
  path: string
  headers: Headers
  body?: ReadableStream<Uint8Array> | string | null
  signal?: AbortSignal
}

interface Stream extends StreamRequest {
  serverId: string
  taken: boolean
  /** A WebSocket's stream: the node's end as the gateway bridges it. */
  socket?: TunnelSocket
  resolve(res: Response): void
  reject(err: unknown): void
}

interface Counters {
  bytes: number
  streams: number
  reconnects: number
}

/** The largest body that travels whole on the control socket (a request's in its open message, an answer). */
export const INLINE_MAX = 64 * 1024

/** A head with its whole body, as one binary message on the control socket: a 4-byte length, the head as JSON, the body's bytes. */
export function frame(head: object, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const json = Buffer.from(JSON.stringify(head))
  const bytes = new Uint8Array(4 + json.byteLength + body.byteLength)
  new DataView(bytes.buffer).setUint32(0, json.byteLength)
  bytes.set(json, 4)
  bytes.set(body, 4 + json.byteLength)
  return bytes
}

export function unframe(bytes: Uint8Array): { head: Record<string, unknown>; body: Uint8Array } | undefined {
  if (bytes.byteLength < 4) return undefined
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0)
  if (4 + length > bytes.byteLength) return undefined
  try {
    const head = JSON.parse(Buffer.from(bytes.subarray(4, 4 + length)).toString()) as unknown
    return head && typeof head === "object"
      ? { head: head as Record<string, unknown>, body: bytes.subarray(4 + length) }
      : undefined
  } catch {
    return undefined
  }
}

/** A request's body when it is small and its length known (a JSON call, a Content-Length up to INLINE_MAX), read whole. */
async function inlineBody(req: StreamRequest): Promise<Uint8Array | undefined> {
  if (typeof req.body === "string") return Buffer.byteLength(req.body) <= INLINE_MAX ? Buffer.from(req.body) : undefined
  const length = Number(req.headers.get("content-length") ?? Number.NaN)
  if (req.body && length <= INLINE_MAX) return new Uint8Array(await new Response(req.body).arrayBuffer())
  return undefined
}

/** Header values travel as base64url JSON: any byte a header may hold arrives as it was. */
export const packHeaders = (headers: Headers) => Buffer.from(JSON.stringify([...headers])).toString("base64url")
export const unpackHeaders = (packed: string | null) =>
  new Headers(JSON.parse(Buffer.from(packed ?? "", "base64url").toString() || "[]"))

export class Tunnels {
  private readonly controls = new Map<string, Peer>()
  private readonly streams = new Map<string, Stream>()
  /** Nodes whose connection this server closed because the cluster token changed. */
  private readonly retired = new Set<string>()
  readonly counters = new Map<string, Counters>()

  connected(serverId: string): boolean {
    return this.controls.has(serverId)
  }

  /** What the registry shows for an outbound node: online exactly while it is connected. */
  status(serverId: string): { status: "online" | "offline" | "unauthorized"; error: string | null } {
    if (this.controls.has(serverId)) return { status: "online", error: null }
    if (this.retired.has(serverId))
      return { status: "unauthorized", error: "the cluster token changed: the node must join again with the new one" }
    return { status: "offline", error: "the node is not connected" }
  }

  /** Every outbound node that holds a control socket now. */
  size(): number {
    return this.controls.size
  }

  private count(serverId: string): Counters {
    let c = this.counters.get(serverId)
    if (!c) this.counters.set(serverId, (c = { bytes: 0, streams: 0, reconnects: 0 }))
    return c
  }

  /** The node's control socket; one it held before is closed as replaced. */
  attach(serverId: string, peer: Peer): void {
    const before = this.controls.get(serverId)
    this.controls.set(serverId, peer)
    this.retired.delete(serverId)
    if (this.counters.has(serverId)) this.count(serverId).reconnects++
    else this.count(serverId)
    before?.close(CLOSE.replaced, "replaced")
  }

  /** The control socket went away: its streams not answered yet fail. False when it had been replaced. */
  detach(serverId: string, peer: Peer): boolean {
    if (this.controls.get(serverId) !== peer) return false
    this.controls.delete(serverId)
    for (const [id, s] of this.streams)
      if (s.serverId === serverId) this.fail(id, new Error("the node's connection closed"))
    return true
  }

  /** Closes a node's control socket (removed, or its token retired). */
  close(serverId: string, code: number, reason: string): void {
    const peer = this.controls.get(serverId)
    if (peer) this.detach(serverId, peer)
    if (peer && code === CLOSE.unauthorized) this.retired.add(serverId)
    peer?.close(code, reason)
  }

  closeAll(code: number, reason: string): void {
    for (const serverId of [...this.controls.keys()]) this.close(serverId, code, reason)
  }

  private fail(id: string, err: unknown): void {
    const s = this.streams.get(id)
    this.streams.delete(id)
    s?.reject(err)
  }

  /** A call to the node: asks it to open a stream, answers once it has posted the answer's head. */
  async fetch(serverId: string, req: StreamRequest, socket?: TunnelSocket): Promise<Response> {
    if (!this.controls.has(serverId)) throw new Error("the node is not connected")
    return this.open(serverId, req, socket, socket || !req.body ? undefined : await inlineBody(req))
  }

  /** A small body (`inline`) goes in the open message: nothing is left for the node to fetch. */
  private open(serverId: string, req: StreamRequest, socket?: TunnelSocket, inline?: Uint8Array): Promise<Response> {
    const control = this.controls.get(serverId)
    if (!control) return Promise.reject(new Error("the node is not connected"))
    const id = crypto.randomUUID()
    return new Promise<Response>((resolve, reject) => {
      // A body or a socket the node has not come for in time: it will not.
      const late = () => {
        const s = this.streams.get(id)
        if (s && (!s.taken || s.socket))
          this.fail(id, new Error(`the node did not open the stream within ${DIAL_MS} ms`))
      }
      const timer = setTimeout(late, DIAL_MS)
      const done = () => {
        clearTimeout(timer)
        req.signal?.removeEventListener("abort", abort)
      }
      const abort = () => this.fail(id, req.signal!.reason)
      req.signal?.addEventListener("abort", abort, { once: true })
      // A request without a body, or with a small one, is whole in the message: nothing is left to fetch.
      const body = !inline && req.body !== undefined && req.body !== null
      this.streams.set(id, {
        ...req,
        serverId,
        taken: !body,
        socket,
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      })
      this.count(serverId).streams++
      const head = { id, method: req.method, path: req.path, headers: packHeaders(req.headers), body }
      if (inline) return void control.send(frame({ type: "open", ...head }, inline))
      control.send(
        JSON.stringify(
          socket ? { type: "socket", id, path: req.path, headers: head.headers } : { type: "open", ...head },
        ),
      )
    }).catch((err) => {
      this.count(serverId).streams--
      throw err
    })
  }

  private stream(id: string, serverId: string | null): Stream {
    const s = this.streams.get(id)
    if (!s || s.serverId !== serverId) throw notFound("no such stream", "stream_not_found")
    return s
  }

  /** The request of a stream, for the node to carry out: once. */
  take(id: string, serverId: string | null): Response {
    const s = this.stream(id, serverId)
    if (s.taken) throw conflict("the stream's request was fetched already", "stream_taken")
    s.taken = true
    return new Response(s.body ?? null, { headers: { "content-type": "application/octet-stream" } })
  }

  /** The node's answer: handed to the caller; settles once its body has been read to the end or dropped. */
  answer(id: string, serverId: string | null, req: Request): Promise<void> {
    const s = this.stream(id, serverId)
    if (!s.taken) throw conflict("the stream's request was not fetched yet", "stream_not_taken")
    this.streams.delete(id)
    const counters = this.count(serverId!)
    if (s.socket) {
      // The node's API refused the upgrade: the caller's upgrade is refused with its status.
      counters.streams--
      s.resolve(new Response(null, { status: 204 }))
      s.socket.refused(Number(req.headers.get("x-hm-status")))
      return Promise.resolve()
    }
    const status = Number(req.headers.get("x-hm-status"))
    const reader = req.body?.getReader()
    let finish = () => {}
    const finished = new Promise<void>((resolve) => (finish = resolve))
    const body =
      reader && !NO_BODY.has(status) && s.method !== "HEAD"
        ? new ReadableStream<Uint8Array>({
            async pull(controller) {
              const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
              if (done || !value) {
                controller.close()
                finish()
              } else {
                counters.bytes += value.byteLength
                controller.enqueue(value)
              }
            },
            cancel(reason) {
              finish()
              return reader.cancel(reason)
            },
          })
        : null
    if (!body) finish()
    s.resolve(new Response(body, { status, headers: unpackHeaders(req.headers.get("x-hm-headers")) }))
    return finished.then(() => void counters.streams--)
  }

  /** A whole answer the node sent on its control socket (`frame`); one for no stream of this node is dropped. */
  answerWhole(serverId: string, bytes: Uint8Array): void {
    const whole = unframe(bytes)
    const { id, status, headers } = (whole?.head ?? {}) as { id?: unknown; status?: unknown; headers?: unknown }
    const s = typeof id === "string" ? this.streams.get(id) : undefined
    if (
      !whole ||
      !s ||
      s.serverId !== serverId ||
      !s.taken ||
      s.socket ||
      !Number.isInteger(status) ||
      !Array.isArray(headers)
    )
      return
    this.streams.delete(id as string)
    const counters = this.count(serverId)
    counters.bytes += whole.body.byteLength
    counters.streams--
    const empty = NO_BODY.has(status as number) || s.method === "HEAD"
    s.resolve(
      new Response(empty ? null : (whole.body as Uint8Array<ArrayBuffer>), {
        status: status as number,
        headers: headers as [string, string][],
      }),
    )
  }

  /** A node's WebSocket at `path` (opened with `headers`), shaped as the client socket the gateway bridges; it opens once the node's end connects. */
  socket(serverId: string, path: string, headers = new Headers()): TunnelSocket {
    const socket = new TunnelSocket()
    this.fetch(serverId, { method: "GET", path, headers }, socket).catch((err: Error) => socket.refused(0, err.message))
    return socket
  }

  /** The node's end of a WebSocket stream, joined to the socket the gateway bridges. */
  adopt(id: string, serverId: string | null): SocketSession {
    const s = this.stream(id, serverId)
    if (!s.socket || !s.taken) throw conflict("the stream is not a WebSocket fetched already", "stream_not_socket")
    this.streams.delete(id)
    s.resolve(new Response(null, { status: 204 }))
    const session = s.socket.session()
    const counters = this.count(serverId!)
    return { ...session, close: (code, reason) => (counters.streams--, session.close(code, reason)) }
  }
}

type Handler<E> = ((e: E) => void) | null

/** The subset of Bun's client WebSocket the gateway's bridge uses, over the node's socket to this server. */
export class TunnelSocket {
  binaryType = "arraybuffer"
  readyState: number = WebSocket.CONNECTING
  onopen: Handler<Event> = null
  onmessage: Handler<{ data: string | ArrayBuffer }> = null
  onclose: Handler<{ code: number; reason: string }> = null
  onerror: Handler<{ message: string; error?: unknown }> = null
  private peer: Peer | undefined
  private paused = false

  get bufferedAmount(): number {
    return (this.peer as { getBufferedAmount?(): number } | undefined)?.getBufferedAmount?.() ?? 0
  }

  pause(): void {
    this.paused = true
    this.peer?.pause?.()
  }

  resume(): void {
    this.paused = false
    this.peer?.resume?.()
  }

  send(data: string | Uint8Array | ArrayBuffer): void {
    this.peer?.send(data instanceof ArrayBuffer ? new Uint8Array(data) : data)
  }

  close(code?: number, reason?: string): void {
    this.readyState = WebSocket.CLOSING
    this.peer?.close(code, reason)
  }

  /** No socket: the node's API answered the upgrade with `status` (0: the node gave no answer). */
  refused(status: number, message = "the node's end did not connect"): void {
    this.readyState = WebSocket.CLOSED
    this.onerror?.({
      message: status ? `Expected 101 status code: ${status}` : message,
      error: status ? undefined : new Error(message),
    })
  }

  session(): SocketSession {
    return {
      open: (peer) => {
        this.peer = peer
        if (this.paused) peer.pause?.()
        this.readyState = WebSocket.OPEN
        this.onopen?.(new Event("open"))
      },
      message: (data) =>
        this.onmessage?.({ data: typeof data === "string" ? data : (data.slice().buffer as ArrayBuffer) }),
      close: (code, reason) => {
        this.readyState = WebSocket.CLOSED
        this.onclose?.({ code: code ?? 1005, reason: reason ?? "" })
      },
    }
  }
}

/** This server's outbound nodes (a control plane's). */
export const tunnels = new Tunnels()
