// The server side of a WebSocket as handlers and the rooms see it: the peer to send to, and the
// session that gets the peer's messages (lib/engine/shell.ts, lib/cluster/gateway.ts).
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
  /** The peer's close code and reason, when it sent them. */
  close(code?: number, reason?: string): void
  drain?(): void
}
