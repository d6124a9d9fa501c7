// A member's end of an outbound connection (lib/cluster/tunnel.ts is the control plane's): it holds
// the control WebSocket it opened to its control plane, the join token in the Authorization header,
// answers heartbeats and notices a silent peer, carries out each stream it is told to open against
// its own API (in this process when it is given, so a call crosses no loopback hop), and reconnects with jittered exponential backoff. A connection replaced by another
// of the same server_id, or closed because the node was removed, waits until it is woken (a join).
import { upstream } from "../errors/errors.ts"
import { domainErrorResponse } from "../http/http-error.ts"
import { CLOSE, frame, INLINE_MAX, packHeaders, unframe, unpackHeaders } from "./tunnel.ts"

export interface LinkTarget {
  controlPlaneUrl: string
  token: string
  serverId: string
  /** This server's own API, where streams are carried out (WebSockets always, calls without `LocalApi`). */
  local: string
}

/** This server's own API called in this process: the HTTP app's handler. */
export type LocalApi = (req: Request) => Promise<Response>

const HEARTBEAT_MS = 5_000
/** Missed heartbeats after which the peer is taken for dead. */
const MISSED = 3
const BACKOFF_MIN_MS = 500
const BACKOFF_MAX_MS = 30_000

/** Full jitter: anywhere up to the exponential step, so members that lost the same control plane do not come back together. */
export const backoff = (attempt: number, random = Math.random) =>
  Math.round(random() * Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt))

export class Link {
  private socket: WebSocket | undefined
  private everOpened = false
  private wakeUp = () => {}
  private waiters: (() => void)[] = []
  /** Whether the control socket is open now, why it last closed, and how often it was opened again. */
  readonly state = { connected: false, error: null as string | null, reconnects: 0 }

  /** Calls are carried out through this handler, in this process, once it is given (the service gives its app's). */
  constructor(public api?: LocalApi) {}

  /** Closes the connection (if any) and reads the membership again at once: after a join or a leave. */
  wake(): void {
    this.socket?.close(1000, "membership changed")
    this.wakeUp()
  }

  /** Resolves once the control socket is open, false after `ms`. */
  connected(ms: number): Promise<boolean> {
    if (this.state.connected) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms)
      this.waiters.push(() => (clearTimeout(timer), resolve(true)))
    })
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      const done = () => (clearTimeout(timer), resolve())
      this.wakeUp = done
      signal.addEventListener("abort", done, { once: true })
    })
  }

  /** Keeps the connection `target()` names (none: waits to be woken) until the signal aborts. */
  async run(target: () => Promise<LinkTarget | undefined>, signal: AbortSignal): Promise<void> {
    let attempt = 0
    signal.addEventListener("abort", () => this.socket?.close(1001, "shutting down"), { once: true })
    while (!signal.aborted) {
      const t = await target().catch(() => undefined)
      if (!t) {
        await this.pause(BACKOFF_MAX_MS, signal)
        continue
      }
      const closed = await this.hold(t)
      attempt = closed.opened ? 0 : attempt + 1
      if (closed.code === CLOSE.replaced || closed.code === CLOSE.removed) await this.pause(BACKOFF_MAX_MS * 10, signal)
      else if (closed.code !== 1000) await this.pause(backoff(attempt), signal)
    }
  }

  /** One control connection, until it closes. */
  private hold(t: LinkTarget): Promise<{ code: number; opened: boolean }> {
    const ws = new WebSocket(`${t.controlPlaneUrl.replace(/^http/, "ws")}/api/cluster/connect`, {
      headers: { authorization: `Bearer ${t.token}`, "x-server-id": t.serverId },
    } as unknown as string[])
    ws.binaryType = "arraybuffer"
    this.socket = ws
    let opened = false
    let heard = Date.now()
    let beat: ReturnType<typeof setInterval> | undefined
    return new Promise((resolve) => {
      ws.onopen = () => {
        opened = true
        if (this.everOpened) this.state.reconnects++
        this.everOpened = true
        Object.assign(this.state, { connected: true, error: null })
        for (const w of this.waiters.splice(0)) w()
        beat = setInterval(() => {
          if (Date.now() - heard > MISSED * HEARTBEAT_MS) return ws.close(4008, "no heartbeat from the control plane")
          ws.send("ping")
        }, HEARTBEAT_MS)
      }
      ws.onmessage = (e) => {
        heard = Date.now()
        if (e.data === "pong") return
        // A call with a small body comes as one binary message: its head, then the body.
        const whole = typeof e.data === "string" ? undefined : unframe(new Uint8Array(e.data as ArrayBuffer))
        const open = whole ? valid(whole.head) : parse(String(e.data))
        // A stream that fails ends on its own: the control plane's caller sees its connection close.
        if (open)
          (open.type === "socket"
            ? carrySocket(t, open)
            : carry(t, open, { api: this.api, control: ws, inline: whole?.body })
          ).catch(() => {})
      }
      ws.onerror = (e) => (this.state.error = (e as ErrorEvent).message ?? "connection failed")
      ws.onclose = (e) => {
        clearInterval(beat)
        if (this.socket === ws) this.socket = undefined
        this.state.connected = false
        if (opened || e.reason) this.state.error = e.reason || `closed (${e.code})`
        resolve({ code: e.code, opened })
      }
    })
  }
}

/** A stream the control plane opens: a call (its head, and whether a body waits to be fetched) or a WebSocket. */
interface Open {
  type: "open" | "socket"
  id: string
  path: string
  method?: string
  headers?: string
  body?: boolean
}

function parse(text: string): Open | undefined {
  try {
    return valid(JSON.parse(text))
  } catch {
    return undefined
  }
}

function valid(head: unknown): Open | undefined {
  const m = head as Partial<Open> | null
  if (
    !m ||
    (m.type !== "open" && m.type !== "socket") ||
    !/^[0-9a-f-]{36}$/.test(m.id ?? "") ||
    !m.path?.startsWith("/")
  )
    return undefined
  return m as Open
}

/** Carries out one call: its body fetched from the control plane when it was not sent whole, this server's API called, the answer sent back. */
async function carry(
  t: LinkTarget,
  open: Open,
  {
    api,
    control,
    inline,
  }: {
    /** This server's API in this process (else called over loopback). */
    api?: LocalApi
    /** The control WebSocket, where an answer read whole goes back. */
    control: WebSocket
    /** The call's body when it came whole on the control connection. */
    inline?: Uint8Array
  },
): Promise<void> {
  const url = `${t.controlPlaneUrl}/api/cluster/streams/${open.id}`
  const auth = { authorization: `Bearer ${t.token}`, "x-server-id": t.serverId }
  const req = open.body
    ? await fetch(url, { headers: auth, decompress: false, timeout: false } as RequestInit).catch(() => undefined)
    : undefined
  if (open.body && !req?.ok) return
  const sent = inline ?? req?.body ?? undefined
  // Ends a streamed answer's call on this server once its post ends (read to the end, or the caller went away).
  const done = new AbortController()
  const request = new Request(`${t.local}${open.path}`, {
    method: open.method ?? "GET",
    headers: unpackHeaders(open.headers ?? null),
    body: sent,
    redirect: "manual",
    signal: done.signal,
    ...(sent ? { duplex: "half" } : {}),
  } as RequestInit)
  const answer = await (api
    ? api(request)
    : fetch(request, { decompress: false, timeout: false } as RequestInit)
  ).catch((err: Error) =>
    domainErrorResponse(upstream(`the node's own API did not answer: ${err.message}`, "node_unreachable")),
  )
  const body = await whole(answer.body)
  if (body instanceof Uint8Array && control.readyState === WebSocket.OPEN) {
    // Answered whole: the call is over as an HTTP exchange is once its answer is read (nothing aborts it).
    return void control.send(frame({ id: open.id, status: answer.status, headers: [...answer.headers] }, body))
  }
  const head = {
    ...auth,
    "x-hm-status": String(answer.status),
    "x-hm-headers": packHeaders(answer.headers),
    "content-type": "application/octet-stream",
  }
  await fetch(url, { method: "POST", headers: head, body, duplex: "half", timeout: false } as RequestInit).finally(() =>
    done.abort(),
  )
}

/** Yields to the event loop once: what a body has ready now is read before it. */
const turn = () => new Promise<undefined>((resolve) => setImmediate(resolve))

/**
 * A body that is small and complete at once (JSON, an error) as its bytes, to go whole on the control
 * socket; any other (an event stream, a download) as a stream to post, with what was read put back in front.
 */
async function whole(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array | ReadableStream<Uint8Array>> {
  if (!body) return new Uint8Array(0)
  const reader = body.getReader()
  const read: Uint8Array[] = []
  let size = 0
  let pending: ReturnType<typeof reader.read> | undefined = reader.read()
  while (size <= INLINE_MAX) {
    const next = await Promise.race([pending, turn()])
    if (!next) break
    if (next.done) return Buffer.concat(read)
    read.push(next.value)
    size += next.value.byteLength
    pending = reader.read()
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = read.shift()
      if (next) return controller.enqueue(next)
      const { value, done } = await (pending ?? reader.read())
      pending = undefined
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** Carries out a WebSocket stream: opens this server's socket at the path asked for (with the headers sent, the gateway's proof), then one to the control plane, and bridges the two. */
async function carrySocket(t: LinkTarget, open: Open): Promise<void> {
  const url = `${t.controlPlaneUrl}/api/cluster/streams/${open.id}`
  const auth = { authorization: `Bearer ${t.token}`, "x-server-id": t.serverId }
  const local = socket(
    `${t.local.replace(/^http/, "ws")}${open.path}`,
    Object.fromEntries(unpackHeaders(open.headers ?? null)),
  )
  const opened = await new Promise<string | null>((resolve) => {
    local.onopen = () => resolve(null)
    local.onerror = (e) => resolve((e as ErrorEvent).message ?? "")
  })
  if (opened !== null) {
    const status = /Expected 101 status code: (\d{3})/.exec(opened)?.[1] ?? "502"
    await fetch(url, {
      method: "POST",
      headers: { ...auth, "x-hm-status": status, "x-hm-headers": packHeaders(new Headers()) },
    })
    return
  }
  local.pause()
  const remote = socket(url.replace(/^http/, "ws"), auth)
  remote.onopen = () => local.resume()
  pipe(local, remote)
  pipe(remote, local)
}

/** Bun's client socket (the DOM typing lacks its pause, resume and request headers). */
function socket(url: string, headers?: Record<string, string>): Bun.WebSocket & WebSocket {
  const ws = new WebSocket(
    url,
    (headers ? { headers } : undefined) as unknown as string[],
  ) as unknown as Bun.WebSocket & WebSocket
  ws.binaryType = "arraybuffer"
  return ws
}

const HIGH_WATER = 1024 * 1024

/** What `from` receives goes to `to`, `from` paused while `to` has a megabyte queued; a close goes across with its code and reason. */
function pipe(from: Bun.WebSocket & WebSocket, to: Bun.WebSocket & WebSocket): void {
  let waiting: ReturnType<typeof setInterval> | undefined
  from.onmessage = (e) => {
    to.send(e.data as string | ArrayBuffer)
    if (waiting || to.bufferedAmount < HIGH_WATER) return
    from.pause()
    waiting = setInterval(() => {
      if (to.bufferedAmount >= HIGH_WATER && to.readyState === WebSocket.OPEN) return
      clearInterval(waiting)
      waiting = undefined
      from.resume()
    }, 10)
  }
  from.onclose = (e) => {
    clearInterval(waiting)
    // 1005 (no code) and 1006 (no close frame) cannot be sent: a plain close, or an error.
    to.close(e.code === 1005 ? 1000 : e.code === 1006 ? 1011 : e.code, e.reason)
  }
}

/** This server's link to its control plane (a member's, when it joined outbound). */
export const link = new Link()
