// The hijacked connection of an exec: one HTTP request upgraded to raw bytes both ways over its own
// socket. Output is pulled: while the reader lags HIGH_WATER chunks behind, the socket stops
// reading, so the engine (and the process writing) waits instead of this process buffering without
// bound; input the socket could not take at once waits for its drain, in order.
import type { Socket, SocketHandler } from "bun"
import { concat } from "./frames.ts"

/** Chunks of hijacked output held for a slow reader before the socket stops reading. */
const HIGH_WATER = 16

export interface Hijacked {
  output: ReadableStream<Uint8Array>
  write(data: Uint8Array | string): void
  close(): void
}

export interface HijackRequest {
  /** The request's path, API version included. */
  path: string
  body: unknown
  /** Opens a socket to the engine with these handlers. */
  connect(handlers: SocketHandler<unknown>): Promise<Socket<unknown>>
  /** The engine's refusal of the upgrade, as an error. */
  refused(status: number, message: string): Error
  /** A socket that could not be opened or failed before the upgrade, as an error. */
  lost(cause: unknown): Error
}

/** The output side: a stream the socket fills and that pauses the socket while it is full. */
function pulledOutput(resume: () => void, end: () => void) {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const stream = new ReadableStream<Uint8Array>(
    { start: (c) => void (controller = c), pull: resume, cancel: end },
    { highWaterMark: HIGH_WATER },
  )
  return {
    stream,
    push(s: { pause(): void }, data: Uint8Array) {
      try {
        controller.enqueue(new Uint8Array(data))
        if (controller.desiredSize! <= 0) s.pause()
      } catch {}
    },
    finish() {
      try {
        controller.close()
      } catch {}
    },
  }
}

/** The message of an engine's error body, JSON or not. */
function messageOf(body: string): string {
  try {
    return JSON.parse(body).message
  } catch {
    return body
  }
}

/** Reads the upgrade's answer head; then everything after it is output. */
function upgradeReader(
  r: HijackRequest,
  settle: { resolve(): void; reject(e: Error): void },
  push: (s: { pause(): void }, data: Uint8Array) => void,
) {
  let head = ""
  let upgraded = false
  return (s: { pause(): void }, data: Uint8Array) => {
    if (upgraded) return push(s, data)
    head += Buffer.from(data).toString("latin1")
    const end = head.indexOf("\r\n\r\n")
    if (end < 0) return
    const status = Number(head.split(" ")[1])
    if (status !== 101 && status !== 200) return settle.reject(r.refused(status, messageOf(head.slice(end + 4).trim())))
    upgraded = true
    settle.resolve()
    const rest = Buffer.from(head.slice(end + 4), "latin1")
    if (rest.length) push(s, rest)
  }
}

export async function hijack(r: HijackRequest): Promise<Hijacked> {
  const payload = JSON.stringify(r.body)
  const head =
    `POST ${r.path} HTTP/1.1\r\nHost: docker\r\nContent-Type: application/json\r\n` +
    `Connection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`
  let socket: Socket<unknown> | undefined
  const output = pulledOutput(
    () => void socket?.resume(),
    () => void socket?.end(),
  )
  let pending: Uint8Array = new Uint8Array(0)
  const send = (data: Uint8Array) => {
    pending = concat(pending, data)
    const written = socket!.write(pending)
    pending = pending.slice(Math.max(written, 0))
  }
  let settle!: { resolve: () => void; reject: (e: Error) => void }
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
  const handlers: SocketHandler<unknown> = {
    data: upgradeReader(r, settle, output.push),
    drain: () => send(new Uint8Array(0)),
    close: output.finish,
    error(_s, err) {
      settle.reject(r.lost(err))
      output.finish()
    },
  }
  try {
    socket = await r.connect(handlers)
  } catch (err) {
    throw r.lost(err)
  }
  socket.write(head)
  await ready
  return {
    output: output.stream,
    write: (d) => send(typeof d === "string" ? new TextEncoder().encode(d) : d),
    close: () => socket!.end(),
  }
}
