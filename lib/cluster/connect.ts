// The control plane accepting an outbound node's control socket (GET /api/cluster/connect, the
// cluster token already checked): only a node registered to be reached this way (the registry shows
// it online while the socket is held); heartbeats answered, a silent node dropped.
import type { Peer, SocketSession } from "../http/socket.ts"
import { badRequest, notFound } from "../http/http-error.ts"
import type { NodeRegistry } from "./nodes.ts"
import { outboundUrl, tunnels } from "./tunnel.ts"

const SILENCE_MS = 15_000

export async function accept(ctx: { nodes: NodeRegistry }, serverId: string | null): Promise<SocketSession> {
  if (!serverId) throw badRequest("the X-Server-Id header is required")
  const node = (await ctx.nodes.list()).find((n) => n.server_id === serverId && n.url === outboundUrl(serverId))
  if (!node) throw notFound(`server ${serverId} is not registered as an outbound node`, "node_not_found")
  let peer: Peer | undefined
  let heard = Date.now()
  let watch: ReturnType<typeof setInterval> | undefined
  return {
    open(p) {
      peer = p
      tunnels.attach(serverId, p)
      watch = setInterval(() => Date.now() - heard > SILENCE_MS && p.close(4008, "no heartbeat from the node"), SILENCE_MS / 3)
    },
    message(data) {
      heard = Date.now()
      if (data === "ping") peer?.send("pong")
    },
    close() {
      clearInterval(watch)
      if (peer) tunnels.detach(serverId, peer)
    },
  }
}
