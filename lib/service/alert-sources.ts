// What the alert rules watch, taken from the service's parts (lib/alerts/watch.ts says what each is).
// Each part is asked only when a rule needs it, and loads its room only then.
import { existsSync } from "node:fs"
import { statfs } from "node:fs/promises"
import { join } from "node:path"
import { setTimeout as pause } from "node:timers/promises"
import type { Sources } from "../alerts/watch.ts"
import type { ServiceEvent } from "../engine/events.ts"
import type { NodeEntry } from "../cluster/nodes.ts"
import { stackDirs } from "../stacks/name.ts"
import type { Ctx } from "./context.ts"

/** The filesystem of a local path: its size and what is used, or null when it cannot be read. */
async function space(path: string) {
  try {
    const fs = await statfs(path)
    return { path, total_bytes: fs.blocks * fs.bsize, used_bytes: (fs.blocks - fs.bfree) * fs.bsize }
  } catch {
    return null
  }
}

/** Follows one node's `/api/events` with the cluster token until the signal aborts, again 2 s after each end. */
async function follow(ctx: Ctx, node: NodeEntry, onEvent: (e: ServiceEvent) => void, signal: AbortSignal) {
  const [{ NodeClient }, { sseMessages }] = await Promise.all([
    import("../cluster/node-client.ts"),
    import("../http/sse-read.ts"),
  ])
  while (!signal.aborted) {
    try {
      const token = (await ctx.cluster.read())?.token
      const res = await new NodeClient(node.url, { token, who: `node ${node.name}` }).fetch("/api/events", {
        signal,
        headers: { accept: "text/event-stream" },
      })
      if (res.ok && res.body) for await (const { data } of sseMessages(res.body)) onEvent(data as ServiceEvent)
      else await res.body?.cancel()
    } catch {}
    await pause(2000, undefined, { signal }).catch(() => {})
  }
}

export function alertSources(ctx: Ctx): Sources {
  return {
    events: ctx.events,
    rounds: (signal) => ctx.stats.subscribe(signal),
    dataDisk: () => ctx.stats.disk(),
    // The engine's data root, where the engine runs on this machine (a unix socket): read as a local path.
    engineDisk: async () =>
      ctx.engine.host.startsWith("unix://") ? space(String((await ctx.engine.info()).DockerRootDir ?? "")) : null,
    stacks: async () => {
      if (!existsSync(stackDirs(ctx.config.dataDir).records)) return []
      const { stackHealths } = await import("../stacks/state.ts")
      const healths = await stackHealths(ctx.stacks, await ctx.engine.listContainers({ all: true }))
      return healths.filter((s) => s.managed).map(({ name, health, reason }) => ({ name, health, reason }))
    },
    overdue: async () => (existsSync(join(ctx.config.dataDir, "backups")) ? ctx.backups.overdue() : []),
    swarm: async () => {
      const { readSwarm } = await import("../swarm/state.ts")
      if ((await readSwarm(ctx.engine)).role !== "manager") return null
      const { listSwarmServices } = await import("../swarm/services.ts")
      return (await listSwarmServices(ctx.engine)).map((s) => ({
        name: s.name,
        stack: s.stack,
        desired: s.replicas.desired,
        running: s.replicas.running,
      }))
    },
    // Each node a container rule names, followed while one does (looked at every SVC_ALERT_POLL seconds).
    nodeEvents: async (wanted, onEvent, signal) => {
      const followed = new Map<string, AbortController>()
      signal.addEventListener("abort", () => followed.forEach((c) => c.abort()), { once: true })
      while (!signal.aborted) {
        const want = wanted()
        const nodes = (want === "*" || want.length) && existsSync(join(ctx.config.dataDir, "nodes.json"))
        const list = nodes
          ? (await ctx.nodes.list().catch(() => [])).filter((n) => want === "*" || want.includes(n.name))
          : []
        for (const [name, c] of followed) if (!list.some((n) => n.name === name)) c.abort(), followed.delete(name)
        for (const n of list)
          if (!followed.has(n.name)) {
            const c = new AbortController()
            followed.set(n.name, c)
            void follow(ctx, n, (e) => onEvent(n.name, e), AbortSignal.any([signal, c.signal]))
          }
        await pause(ctx.config.alerts.pollSeconds * 1000, undefined, { signal }).catch(() => {})
      }
    },
    // Nodes reached directly are probed (an outbound node's state is its connection's).
    nodes: async () => {
      if (!existsSync(join(ctx.config.dataDir, "nodes.json"))) return []
      const [{ check }, { outboundId }] = await Promise.all([
        import("../cluster/probe.ts"),
        import("../cluster/tunnel.ts"),
      ])
      const nodes = await ctx.nodes.list()
      return Promise.all(
        nodes.map(async (n) => {
          const now = outboundId(n.url) ? n : await check(ctx, n)
          return { name: n.name, status: now.status, error: now.error ?? null }
        }),
      )
    },
  }
}
