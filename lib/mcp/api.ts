// A tool's way into the service: a request to the app's own routes, made in-process, so a tool does
// exactly what the API does, with the same validation and the same error messages.
import { DomainError, upstream } from "../errors/errors.ts"
import { kindOf } from "../http/http-error.ts"
import { sseMessages } from "../http/sse-read.ts"

export type AppFetch = (req: Request) => Promise<Response>

export interface ApiCall {
  method: "GET" | "POST" | "PUT" | "DELETE"
  path: string
  query?: Record<string, string | number | boolean | undefined>
  body?: unknown
}

/** A URL path segment from a tool argument. */
export const segment = (value: string) => encodeURIComponent(value)

function url(call: ApiCall): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) q.set(k, String(v))
  const s = q.toString()
  return `http://localhost${call.path}${s ? `?${s}` : ""}`
}

/** The data of an SSE body's events; an `error` event fails the call with its message. */
export async function sseData(body: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const events: unknown[] = []
  for await (const { event, data } of sseMessages(body)) {
    const failed = data as { error?: { code?: string; message?: string } } | null
    if (event === "error")
      throw upstream(failed?.error?.message ?? "the stream failed", failed?.error?.code ?? "stream_failed")
    events.push(data)
  }
  return events
}

/**
 * Calls one route and returns its answer: JSON parsed, an event stream as the list of its events,
 * other text as it came. An error answer throws a domain error of its status's kind with the API's own code and message.
 */
export async function callApi(fetch: AppFetch, call: ApiCall, signal?: AbortSignal): Promise<unknown> {
  return (await answerOf(fetch, call, signal)).value
}

/** The same, with the answer as text: the route's own JSON as it sent it, the events' data as JSON. */
export async function answerOf(
  fetch: AppFetch,
  call: ApiCall,
  signal?: AbortSignal,
): Promise<{ value: unknown; text: string }> {
  const init: RequestInit = { method: call.method, signal }
  if (call.body !== undefined) {
    init.body = JSON.stringify(call.body)
    init.headers = { "content-type": "application/json" }
  }
  const res = await fetch(new Request(url(call), init))
  const type = res.headers.get("content-type") ?? ""
  if (res.ok && type.includes("text/event-stream")) {
    const events = await sseData(res.body!)
    return { value: events, text: JSON.stringify(events) }
  }
  const text = await res.text()
  if (!res.ok) {
    const error = type.includes("json")
      ? (JSON.parse(text) as { error?: { code?: string; message?: string } }).error
      : undefined
    throw new DomainError(
      kindOf(res.status),
      error?.code ?? "error",
      error?.message ?? (text || `the API answered ${res.status}`),
    )
  }
  if (type.includes("json")) return text ? { value: JSON.parse(text), text } : { value: null, text: "null" }
  return { value: text, text }
}
