// Probing a node: its health must answer with the server_id it registered under (else another
// machine has taken its address), then a token-guarded call tells whether it accepts this cluster's
// token. Both calls share one deadline; no answer in time means offline.
import type { Cluster } from "./membership.ts"
import { errorOf, failure, NodeClient, NodeUnreachable } from "./node-client.ts"
import type { NodeEntry, NodeRegistry, ProbeResult } from "./nodes.ts"

/** An answer that is not the one expected, in words: its status and the node's own error message, if any. */
async function unexpected(what: string, res: Response): Promise<ProbeResult> {
  const message = (await errorOf(res))?.message
  return {
    status: "unknown",
    error: `${what} answered HTTP ${res.status}${message !== undefined ? `: ${message}` : ""}`,
  }
}

export async function probe(
  url: string,
  serverId: string,
  token: string | undefined,
  timeoutMs: number,
): Promise<ProbeResult> {
  const deadline = { signal: AbortSignal.timeout(timeoutMs), timeoutMs }
  try {
    // The token goes only to a node that has said it is the server registered at this address.
    const health = await new NodeClient(url).fetch("/api/health", deadline)
    if (!health.ok) return unexpected("health check", health)
    const answered = ((await health.json().catch(() => ({}))) as { server_id?: unknown }).server_id
    if (typeof answered !== "string")
      return { status: "unknown", error: "health check answered without a server_id: not this service" }
    if (answered !== serverId)
      return {
        status: "unknown",
        error: `answered as server ${answered}, registered as ${serverId}: another server has taken its address`,
      }
    const verify = await new NodeClient(url, { token }).fetch("/api/cluster/verify", deadline)
    if (verify.ok) await verify.body?.cancel() // its status is the answer; an unread body would hold the node's connection
    if (verify.status === 401) return { status: "unauthorized", error: "the node refuses this cluster's token" }
    if (!verify.ok) return unexpected("token check", verify)
    return { status: "online", error: null }
  } catch (err) {
    return { status: "offline", error: err instanceof NodeUnreachable ? err.reason : failure(err, timeoutMs) }
  }
}

/** What a check reads and records: the cluster token, the registry, the probe deadline, a metric and an event. */
export interface Checker {
  cluster: Cluster
  nodes: NodeRegistry
  events: { publish(event: { type: "node"; action: "offline"; name: string; level: "error"; message: string }): void }
  metrics: { observeProbe(node: string, status: string, seconds: number): void }
  config: { probeTimeoutMs: number }
}

/** Probes a registry entry with this server's token and records the result; a node that goes offline is an error event. */
export async function check(ctx: Checker, node: NodeEntry): Promise<NodeEntry> {
  const token = (await ctx.cluster.read())?.token
  const started = performance.now()
  const result = await probe(node.url, node.server_id, token, ctx.config.probeTimeoutMs)
  ctx.metrics.observeProbe(node.name, result.status, (performance.now() - started) / 1000)
  const settled = await ctx.nodes.settle(node, result)
  if (result.status === "offline" && node.status !== "offline")
    ctx.events.publish({
      type: "node",
      action: "offline",
      name: node.name,
      level: "error",
      message: `node ${node.name} (${node.url}) is offline: ${result.error}`,
    })
  return settled
}
