// Server-sent events: one JSON object per event, heartbeats so idle streams stay open, and the
// source closed as soon as the client goes away.
export const HEARTBEAT_MS = 15_000

const encoder = new TextEncoder()
const frames = new WeakMap<object, Uint8Array>()

/**
 * A value's message. A frozen value is one that cannot change, the same object handed to every
 * subscriber of a bus: its message is written once however many streams send it.
 */
export function frame(value: unknown): Uint8Array {
  const shared = typeof value === "object" && value !== null && Object.isFrozen(value)
  const known = shared ? frames.get(value) : undefined
  if (known) return known
  const bytes = encoder.encode(`data: ${JSON.stringify(value)}\n\n`)
  if (shared) frames.set(value, bytes)
  return bytes
}

export function sse(source: AsyncIterable<unknown>, signal: AbortSignal, heartbeatMs = HEARTBEAT_MS): Response {
  return sseBatches(
    (async function* () {
      for await (const value of source) yield [value]
    })(),
    signal,
    heartbeatMs,
  )
}

/** The same for a source that yields several events at once: a batch goes out as one chunk (fast streams, e.g. stack logs). */
export function sseBatches(
  source: AsyncIterable<unknown[]>,
  signal: AbortSignal,
  heartbeatMs = HEARTBEAT_MS,
): Response {
  const iterator = source[Symbol.asyncIterator]()
  let timer: ReturnType<typeof setInterval> | undefined
  const stop = () => {
    clearInterval(timer)
    iterator.return?.().catch(() => {})
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(": connected\n\n"))
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": ping\n\n"))
        } catch {
          stop()
        }
      }, heartbeatMs)
      signal.addEventListener("abort", stop, { once: true })
    },
    async pull(controller) {
      try {
        const next = await iterator.next()
        if (next.done) {
          clearInterval(timer)
          controller.close()
        } else if (next.value.length === 1) controller.enqueue(frame(next.value[0]))
        else controller.enqueue(encoder.encode(next.value.map((v) => `data: ${JSON.stringify(v)}\n\n`).join("")))
      } catch (err) {
        clearInterval(timer)
        const message = err instanceof Error ? err.message : String(err)
        controller.enqueue(
          encoder.encode(`event: error\ndata: ${JSON.stringify({ error: { code: "stream_failed", message } })}\n\n`),
        )
        controller.close()
      }
    },
    cancel: stop,
  })
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  })
}
