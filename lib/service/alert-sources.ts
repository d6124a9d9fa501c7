// What the alert rules watch, taken from the service's parts (lib/alerts/watch.ts says what each is).
// Each part is asked only when a rule needs it, and loads its room only then.
import { existsSync } from "node:fs"
import { statfs } from "node:fs/promises"
import { join } from "node:path"
import type { Sources } from "../alerts/watch.ts"
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
      const { composeHealth } = await import("../overview/overview.ts")
      const { byProject } = await import("../stacks/state.ts")
      const projects = byProject(await ctx.engine.listContainers({ all: true }))
      const names = ctx.stacks.names()
      const compose = await Promise.all(
        names.map(async (name) => ((await ctx.stacks.state(name)).orchestrator === "swarm" ? null : name)),
      )
      return compose
        .filter((n): n is string => n !== null)
        .map((name) => ({ name, ...composeHealth(projects.get(name) ?? []) }))
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
