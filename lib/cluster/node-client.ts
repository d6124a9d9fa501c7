// The one client for calls to another server of the cluster: its base URL, the cluster token as a
// bearer, a deadline per call, JSON or streamed bodies both ways, and the peer's error envelope read
// into a domain error (the kind of the peer's 4xx kept, anything else upstream). A peer that does not
// answer is upstream saying why, never with the token.
import { DomainError } from "../errors/errors.ts"
import { kindOf } from "../http/http-error.ts"
import { outboundId, tunnels } from "./tunnel.ts"

export interface NodeCall {
  method?: string
  /** Sent as JSON. */
  json?: unknown
  /** Sent as it comes (a tar, a forwarded request's body); `headers` say what it is. */
  stream?: ReadableStream<Uint8Array> | null
  headers?: HeadersInit
  /** Milliseconds the answer may take; without one the call has no deadline of its own (a stream stays open as long as its consumer). */
  timeoutMs?: number
  /** Ends the call early (the consumer went away, or a deadline shared with other calls). */
  signal?: AbortSignal
  /** "error" unless the answer is handed on as it is (a gateway passes redirects through). */
  redirect?: RequestRedirect
}

export interface NodeClientOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string
  /** Who the peer is in messages; its base URL unless given. */
  who?: string
  /** The error code of a peer that does not answer. */
  unreachableCode?: string
}

/** A peer that gave no answer: upstream, its `reason` saying why in a few words. */
export class NodeUnreachable extends DomainError {
  constructor(
    who: string,
    code: string,
    readonly reason: string,
  ) {
    super("upstream", code, `${who} did not answer: ${reason}`)
  }
}

/** Why a call got no answer, in words. */
export function failure(err: unknown, timeoutMs?: number): string {
  const e = err as { name?: string; code?: string; message?: string }
  if (e?.name === "TimeoutError") return `no answer within ${timeoutMs ?? 0} ms`
  return e?.code ?? e?.message ?? String(err)
}

/** The `{"error": {code, message}}` a server of the cluster answers with, when the body is one. */
export async function errorOf(res: Response): Promise<{ code?: string; message?: string } | undefined> {
  const e = ((await res.json().catch(() => null)) as { error?: { code?: unknown; message?: unknown } } | null)?.error
  if (!e) return undefined
  return {
    code: typeof e.code === "string" ? e.code : undefined,
    message: typeof e.message === "string" ? e.message : undefined,
  }
}

/** A refusal as this server's error: the kind of the peer's 4xx kept (a 5xx is upstream), its code, and its message after `prefix`. */
export async function refusal(res: Response, prefix: string, fallbackCode: string): Promise<DomainError> {
  const e = await errorOf(res)
  return new DomainError(
    res.status >= 500 ? "upstream" : kindOf(res.status),
    e?.code ?? fallbackCode,
    `${prefix}: ${e?.message ?? `HTTP ${res.status}`}`,
  )
}

function signalOf(call: NodeCall): AbortSignal | undefined {
  const signals = [call.signal, call.timeoutMs === undefined ? undefined : AbortSignal.timeout(call.timeoutMs)].filter(
    (s) => s !== undefined,
  )
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0]
}

function headersOf(call: NodeCall, token: string | undefined): Headers {
  const headers = new Headers(call.headers)
  if (token) headers.set("authorization", `Bearer ${token}`)
  if (call.json !== undefined) headers.set("content-type", "application/json")
  return headers
}

export class NodeClient {
  private readonly who: string

  constructor(
    readonly base: string,
    private readonly options: NodeClientOptions = {},
  ) {
    this.who = options.who ?? base
  }

  /** Any answer of the peer, its body unread and undecoded; no answer is a NodeUnreachable. */
  async fetch(path: string, call: NodeCall = {}): Promise<Response> {
    const stream = call.stream ?? undefined
    const outbound = outboundId(this.base)
    try {
      // A node behind NAT is reached through the connection it holds to this control plane.
      if (outbound) {
        const body = call.json !== undefined ? JSON.stringify(call.json) : stream
        return await tunnels.fetch(outbound, {
          method: call.method ?? "GET",
          path,
          headers: headersOf(call, this.options.token),
          body,
          signal: signalOf(call),
        })
      }
      return await fetch(`${this.base}${path}`, {
        method: call.method ?? "GET",
        headers: headersOf(call, this.options.token),
        body: call.json !== undefined ? JSON.stringify(call.json) : stream,
        redirect: call.redirect ?? "error",
        signal: signalOf(call),
        decompress: false,
        ...(stream ? { duplex: "half" } : {}),
        ...(call.timeoutMs === undefined ? { timeout: false } : {}),
      } as RequestInit)
    } catch (err) {
      throw new NodeUnreachable(
        this.who,
        this.options.unreachableCode ?? "node_unreachable",
        failure(err, call.timeoutMs),
      )
    }
  }

  /** A 2xx answer; any other is the peer's refusal (`refusal`), its message after `who`. */
  async ok(path: string, call: NodeCall = {}): Promise<Response> {
    const res = await this.fetch(path, call)
    if (res.ok) return res
    throw await refusal(res, this.who, "node_error")
  }

  /** A 2xx answer's JSON body. */
  async json<T = any>(path: string, call: NodeCall = {}): Promise<T> {
    return (await this.ok(path, call)).json() as Promise<T>
  }
}
