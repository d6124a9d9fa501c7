// What a handler file exports: one default handler, plus optional `params`/`body`/`query` valibot
// schemas (checked before the handler runs), `response` (what it answers, lib/http/schemas.ts),
// `detail` (OpenAPI summary, operationId, tags, security) and `accepts` (request content types
// other than JSON, "*" for any).
import type { Ctx } from "../service/context.ts"

export interface HandlerInput<B = any, Q = Record<string, any>, P = Record<string, string>> {
  params: P
  query: Q
  body: B
  request: Request
  ctx: Ctx
  /** The connection's peer address as the server saw it (undefined when called without a server). */
  peer: string | undefined
  /** Response status and headers; a handler sets `set.status = 201` for a creation. */
  set: { status?: number | string; headers: Record<string, string | number> }
}

export type Handler<B = any, Q = any, P = Record<string, string>> = (input: HandlerInput<B, Q, P>) => unknown

export const defineHandler = <B = any, Q = Record<string, any>, P = Record<string, string>>(fn: Handler<B, Q, P>) => fn

/** The server side of a WebSocket: the handler runs before the upgrade (it may throw an HttpError). */
export interface Peer {
  send(data: string | Uint8Array): number
  close(code?: number, reason?: string): void
  /** Stop and restart reading from the client, so it feels backpressure. */
  pause?(): void
  resume?(): void
}
export interface SocketSession {
  open(peer: Peer): void
  message(data: string | Uint8Array): void
  close(): void
  drain?(): void
}
export type SocketHandler = (input: Omit<HandlerInput, "body" | "set">) => Promise<SocketSession>

export const defineSocket = (fn: SocketHandler) => fn
