// The API client: JSON in and out, errors as the service's own HttpError with the API's code and
// message, server-sent events read through fetch with the service's one SSE reader (so a refused
// stream shows its error), and the node switcher: when a node is selected, every call goes through
// the control plane's gateway to that node.
import { HttpError } from "#lib/http/http-error.ts"
import { sseMessages } from "#lib/http/sse-read.ts"

const NODE_KEY = "hm.node"
let node: string | null = globalThis.sessionStorage?.getItem(NODE_KEY) ?? null

export const currentNode = () => node

export function setNode(name: string | null): void {
  node = name
  if (name) sessionStorage.setItem(NODE_KEY, name)
  else sessionStorage.removeItem(NODE_KEY)
}

export interface CallOptions {
  /** Always this server, never the selected node (cluster membership, the node list, copy). */
  local?: boolean
  signal?: AbortSignal
}

/** The URL of an API path ("/containers/x") on this server or, through the gateway, on the selected node. */
export function apiUrl(path: string, opts: CallOptions = {}): string {
  return node && !opts.local ? `/api/nodes/${encodeURIComponent(node)}/proxy/api${path}` : `/api${path}`
}

async function failure(res: Response): Promise<HttpError> {
  const text = await res.text().catch(() => "")
  try {
    const { error, ...rest } = JSON.parse(text)
    // Members beside `error` (a form's `fields`, a blocked plan) stay with it.
    if (error?.message) return new HttpError(res.status, error.code ?? "error", error.message, { body: rest })
  } catch {}
  return new HttpError(res.status, "http_" + res.status, text.slice(0, 300) || res.statusText || `HTTP ${res.status}`)
}

export async function call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<T> {
  const init: RequestInit = { method, signal: opts.signal, headers: { accept: "application/json" } }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { ...init.headers, "content-type": "application/json" }
  }
  const url = apiUrl(path, opts)
  const res = await fetch(url, init)
  // This server's session ended (signed out elsewhere, expired): the app shows the sign-in page again.
  // A node's own refusal through the gateway is that node's answer, shown where it was asked for.
  if (res.status === 401 && document.body.dataset.role && url === `/api${path}`)
    dispatchEvent(new Event("hm:signed-out"))
  if (!res.ok) throw await failure(res)
  if (res.status === 204) return undefined as T
  const text = await res.text()
  return (text ? JSON.parse(text) : undefined) as T
}

export const get = <T = any>(path: string, opts?: CallOptions) => call<T>("GET", path, undefined, opts)
export const post = <T = any>(path: string, body?: unknown, opts?: CallOptions) => call<T>("POST", path, body, opts)
export const put = <T = any>(path: string, body?: unknown, opts?: CallOptions) => call<T>("PUT", path, body, opts)
export const del = <T = any>(path: string, opts?: CallOptions) => call<T>("DELETE", path, undefined, opts)

export const enc = encodeURIComponent

/**
 * Follows a server-sent event stream until `signal` aborts: each `data:` JSON object goes to
 * `onData`; an `event: error` or a refused request ends it through `onError`; the stream's own end
 * ends it quietly. A dropped connection is reported and retried.
 */
export async function follow(
  path: string,
  onData: (data: any) => void,
  onError: (err: Error) => void,
  signal: AbortSignal,
  opts: CallOptions = {},
): Promise<void> {
  while (!signal.aborted) {
    try {
      const res = await fetch(apiUrl(path, opts), { signal, headers: { accept: "text/event-stream" } })
      if (!res.ok) return onError(await failure(res))
      for await (const { event, data } of sseMessages(res.body!)) {
        const failed = data as { error?: { code?: string; message?: string } }
        if (event === "error")
          return onError(
            new HttpError(0, failed.error?.code ?? "stream_failed", failed.error?.message ?? "the stream failed"),
          )
        onData(data)
      }
      return
    } catch (err) {
      if (signal.aborted) return
      onError(err as Error)
    }
    await new Promise((r) => setTimeout(r, 2000))
  }
}

/** WebSocket URL for an API path, through the gateway when a node is selected. */
export function socketUrl(path: string): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${apiUrl(path)}`
}

/** Calls `reload` (at most once a second) whenever the engine reports a change to a container. */
export function reloadOnChange(reload: () => unknown, signal: AbortSignal): void {
  let timer: ReturnType<typeof setTimeout> | undefined
  signal.addEventListener("abort", () => clearTimeout(timer))
  void follow(
    "/events",
    (e) => {
      if (e.type !== "container" || timer) return
      timer = setTimeout(() => {
        timer = undefined
        if (!signal.aborted) reload()
      }, 1000)
    },
    () => {},
    signal,
  )
}
