// The gateway to a node: an HTTP request is forwarded with its body streamed as it comes (a
// Content-Length replayed, a chunked upload kept chunked) and the answer streamed back (SSE
// included); a WebSocket is bridged socket to socket with backpressure both ways. Authorization,
// cookies (a session of this server), Origin, Expect, hop-by-hop headers and a client's X-Hm-Proof
// stay behind; the gateway's own proof of who called it (proof.ts) goes instead, when it is given a
// signer. A node's Set-Cookie does not come back (its sessions are its own); a node that does not
// answer is a 502.
import type { Peer, SocketSession } from "../http/socket.ts"
import { DomainError } from "../errors/errors.ts"
import { kindOf } from "../http/http-error.ts"
import { failure, NodeClient, NodeUnreachable } from "./node-client.ts"
import type { NodeEntry } from "./nodes.ts"
import { PROOF_HEADER, type ProofSigner } from "./proof.ts"
import { outboundId, tunnels } from "./tunnel.ts"

const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "upgrade"]
/** Never sent to a node: credentials (a token, this server's session cookie, a proof the client made up),
 *  the browser origin the control plane already checked, and `Expect: 100-continue`, which the control
 *  plane has already answered. */
const REQUEST_ONLY = ["authorization", "cookie", "origin", "host", "expect", PROOF_HEADER]
/** A WebSocket peer that has this many bytes queued stops reading from the other side. */
const HIGH_WATER = 1024 * 1024
const DRAIN_POLL_MS = 10

/** `/{path}?{query}` on the node for a request under /api/nodes/{name}/proxy. */
function targetPath(requestUrl: string): string {
  const url = new URL(requestUrl)
  const path = /^\/api\/nodes\/[^/]+\/proxy(\/.*)?$/.exec(url.pathname)?.[1] ?? "/"
  return `${path}${url.search}`
}

/** `{node url}/{path}?{query}` for a request under /api/nodes/{name}/proxy. */
export const targetUrl = (node: NodeEntry, requestUrl: string) => `${node.url}${targetPath(requestUrl)}`

function strip(headers: Headers, extra: string[]): Headers {
  const out = new Headers(headers)
  const named = (headers.get("connection") ?? "").split(",").map((s) => s.trim().toLowerCase())
  // transfer-encoding goes too: fetch sends a body without Content-Length chunked by itself.
  for (const h of [...HOP_BY_HOP, "transfer-encoding", ...extra, ...named]) if (h) out.delete(h)
  return out
}

const who = (node: NodeEntry) => `node "${node.name}" at ${node.url}`
const unreachable = (node: NodeEntry, err: unknown) => new NodeUnreachable(who(node), "node_unreachable", failure(err))

/** A failed WebSocket connect: the node's own refusal (a 4xx keeps its kind), or no answer. */
function connectFailed(node: NodeEntry, e: ErrorEvent): DomainError {
  const status = Number(/Expected 101 status code: (\d{3})/.exec(e.message)?.[1])
  if (!status) return unreachable(node, e.error ?? e.message)
  return new DomainError(
    status >= 400 && status < 500 ? kindOf(status) : "upstream",
    "upgrade_refused",
    `node "${node.name}" answered the WebSocket upgrade with HTTP ${status}`,
  )
}

/** The gateway's proof for a call to `node`, when it has a signer (its caller is known). */
function proven(
  headers: Headers,
  call: { node: NodeEntry; method: string; path: string },
  sign?: ProofSigner,
): Headers {
  if (sign) headers.set(PROOF_HEADER, sign(call.method, call.path, call.node.server_id))
  return headers
}

export async function forward(node: NodeEntry, req: Request, sign?: ProofSigner): Promise<Response> {
  const path = targetPath(req.url)
  const res = await new NodeClient(node.url, { who: who(node) }).fetch(path, {
    method: req.method,
    headers: proven(strip(req.headers, REQUEST_ONLY), { node, method: req.method, path }, sign),
    stream: req.body,
    redirect: "manual",
    signal: req.signal, // the client going away ends the call to the node
  })
  return new Response(res.body, {
    status: res.status,
    statusText: res.statusText,
    headers: strip(res.headers, ["set-cookie"]),
  })
}

/** Opens the node's WebSocket; resolves once it is open, so a failure still refuses the client's upgrade (502, or the node's 4xx). */
export async function bridge(node: NodeEntry, requestUrl: string, sign?: ProofSigner): Promise<SocketSession> {
  // Bun's client socket (the DOM typing lacks its pause and resume, and its request headers), or an
  // outbound node's socket through its connection.
  const outbound = outboundId(node.url)
  const path = targetPath(requestUrl)
  const headers = proven(new Headers(), { node, method: "GET", path }, sign)
  const upstream = (outbound
    ? tunnels.socket(outbound, path, headers)
    : new WebSocket(targetUrl(node, requestUrl).replace(/^http/, "ws"), {
        headers,
      } as unknown as string[])) as unknown as Bun.WebSocket
  upstream.binaryType = "arraybuffer"
  upstream.pause() // until the client's socket is open
  await new Promise<void>((resolve, reject) => {
    upstream.onopen = () => resolve()
    upstream.onerror = (e) => reject(connectFailed(node, e as ErrorEvent))
  })
  let client: Peer | undefined
  const early: (string | Uint8Array)[] = [] // what the node sent before the client's socket opened
  let ended: { code: number; reason: string } | undefined
  let waiting: ReturnType<typeof setInterval> | undefined
  const toClient = (data: string | Uint8Array) => {
    if (!client) early.push(data)
    else if (client.send(data) === -1) upstream.pause() // resumed by drain
  }
  const end = (code: number, reason: string) => {
    if (ended) return
    // 1005 (no code) and 1006 (no close frame) cannot be sent: a plain close, or an error.
    ended = { code: code === 1005 ? 1000 : code === 1006 ? 1011 : code, reason }
    client?.close(ended.code, ended.reason)
  }
  upstream.onmessage = (e) => toClient(typeof e.data === "string" ? e.data : new Uint8Array(e.data as ArrayBuffer))
  upstream.onclose = (e) => end(e.code, e.reason)
  upstream.onerror = () => end(1011, "the node's socket failed")
  return {
    open(peer) {
      client = peer
      for (const data of early.splice(0)) toClient(data)
      if (ended) peer.close(ended.code, ended.reason)
      else upstream.resume()
    },
    message(data) {
      upstream.send(data)
      if (waiting || upstream.bufferedAmount < HIGH_WATER || !client?.pause) return
      client.pause() // the node reads slower than the client writes: resumed once its queue drains
      waiting = setInterval(() => {
        if (upstream.bufferedAmount >= HIGH_WATER && upstream.readyState === WebSocket.OPEN) return
        clearInterval(waiting)
        waiting = undefined
        client?.resume?.()
      }, DRAIN_POLL_MS)
    },
    drain() {
      upstream.resume()
    },
    close() {
      ended ??= { code: 1000, reason: "" }
      clearInterval(waiting)
      upstream.close()
    },
  }
}
