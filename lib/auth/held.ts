// What a signed-in caller holds open, ended when the credential it was opened with ends (Auth.keep):
// the HTTP layer passes every WebSocket session and every answer through these two, at one place each.
// A WebSocket closes with 1008 and the reason ("signed out", "token revoked", "user removed", "role
// changed"...); an event stream ends (a client that reconnects is asked for a credential again). Each
// end is one audit entry (`ws.ended`, `stream.ended`) with its reason; a WebSocket's opening and
// closing are entries too (`ws.open`, `ws.close`).
import type { Peer, SocketSession } from "../http/socket.ts"
import type { Auth } from "./auth.ts"

/** How one entry of the audit log about the held thing is written: its action, and the reason it ended. */
export type Audit = (action: string, reason?: string) => void

/** A WebSocket session of a signed-in caller, audited when it opens, closes or is ended. */
export function heldSocket(auth: Auth, request: Request, session: SocketSession, audit: Audit): SocketSession {
  if (!auth.who(request)) return session
  let release = () => {}
  return {
    ...session,
    open: (peer: Peer) => {
      audit("ws.open")
      release = auth.keep(request, (reason) => {
        audit("ws.ended", reason)
        peer.close(1008, reason)
      })
      session.open(peer)
    },
    message: (data) => session.message(data),
    close: (code, reason) => {
      release()
      audit("ws.close")
      session.close(code, reason)
    },
    ...(session.drain && { drain: () => session.drain!() }),
  }
}

const isEventStream = (answer: unknown): answer is Response =>
  answer instanceof Response && !!answer.body && !!answer.headers.get("content-type")?.startsWith("text/event-stream")

/** A signed-in caller's event stream, ended when its credential ends; any other answer as it is. */
export function heldStream(auth: Auth, request: Request, answer: unknown, audit: Audit): unknown {
  if (!isEventStream(answer) || !auth.who(request)) return answer
  const reader = answer.body!.getReader()
  let release = () => {}
  let ended = false
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      release = auth.keep(request, (reason) => {
        ended = true
        audit("stream.ended", reason)
        controller.close()
        void reader.cancel(reason).catch(() => {})
      })
    },
    async pull(controller) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (ended) return
      if (done) {
        release()
        controller.close()
      } else controller.enqueue(value)
    },
    cancel(reason) {
      release()
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers: answer.headers })
}
