// The control plane accepting an outbound node's control socket (GET /api/cluster/connect, the
// cluster token already checked): only a node registered to be reached this way (the registry shows
// it online while the socket is held); heartbeats answered, a silent node dropped, small answers
// taken off it (tunnel.ts). Its coming and going are events: online (info) and offline (error) with
// why, unless another connection of the same node replaced it.
import type { Peer, SocketSession } from "../http/socket.ts"
import { invalid, notFound } from "../errors/errors.ts"
import type { NodeRegistry } from "./nodes.ts"
import { outboundUrl, tunnels } from "./tunnel.ts"

const SILENCE_MS = 15_000

type NodeEvent = { type: "node"; action: "online" | "offline"; name: string; level: "info" | "error"; message: string }

export async function accept(
  ctx: { nodes: NodeRegistry; events: { publish(event: NodeEvent): void } },
  serverId: string | null,
): Promise<SocketSession> {
  if (!serverId) throw invalid("the X-Server-Id header is required", "bad_request")
  const node = (await ctx.nodes.list()).find((n) => n.server_id === serverId && n.url === outboundUrl(serverId))
  if (!node) throw notFound(`server ${serverId} is not registered as an outbound node`, "node_not_found")
  let peer: Peer | undefined
  let heard = Date.now()
  let watch: ReturnType<typeof setInterval> | undefined
  let silent = false
  return {
    open(p) {
      peer = p
      tunnels.attach(serverId, p)
      ctx.events.publish({
        type: "node",
        action: "online",
        name: node.name,
        level: "info",
        message: `node ${node.name} (${node.url}) connected`,
      })
      watch = setInterval(() => {
        if (Date.now() - heard <= SILENCE_MS) return
        silent = true
        p.close(4008, "no heartbeat from the node")
      }, SILENCE_MS / 3)
    },
    message(data) {
      heard = Date.now()
      if (data === "ping") peer?.send("pong")
      else if (typeof data !== "string") tunnels.answerWhole(serverId, data)
    },
    close(code, reason) {
      clearInterval(watch)
      if (!peer || !tunnels.detach(serverId, peer)) return
      const why = silent
        ? `no heartbeat for ${SILENCE_MS / 1000} s`
        : `its connection closed (${code ?? 1005}${reason ? `: ${reason}` : ""})`
      ctx.events.publish({
        type: "node",
        action: "offline",
        name: node.name,
        level: "error",
        message: `node ${node.name} (${node.url}) is offline: ${why}`,
      })
    },
  }
}
