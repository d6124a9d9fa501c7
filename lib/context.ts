// The one object every handler gets: built once at start, or by a test with a fake engine.
import type { Config } from "./config.ts"
import { dockerEngine, type Engine } from "./engine.ts"
import { EventBus } from "./events.ts"
import { serverId } from "./identity.ts"
import { composeRunner, type ComposeRunner } from "./compose.ts"
import { Stacks } from "./stacks.ts"
import { Cluster } from "./cluster.ts"
import { NodeRegistry } from "./nodes.ts"

export interface Ctx {
  config: Config
  engine: Engine
  events: EventBus
  serverId: string
  /** Wall clock in milliseconds; tests may pin it. */
  now: () => number
  /** The compose CLI (a fake in handler tests). */
  compose: ComposeRunner
  /** The stack store under <dataDir>/stacks. */
  stacks: Stacks
  /** This server's cluster role and token (cluster.json). */
  cluster: Cluster
  /** The node registry of a control plane (nodes.json). */
  nodes: NodeRegistry
}

export async function createContext(config: Config, overrides: Partial<Ctx> = {}): Promise<Ctx> {
  const engine = overrides.engine ?? dockerEngine(config.dockerHost)
  const events = overrides.events ?? new EventBus()
  const compose = overrides.compose ?? composeRunner(engine.host, events)
  return {
    config,
    engine,
    events,
    compose,
    stacks: overrides.stacks ?? new Stacks(config.dataDir, compose, overrides.now),
    cluster: overrides.cluster ?? new Cluster(config.dataDir, overrides.now),
    nodes: overrides.nodes ?? new NodeRegistry(config.dataDir, overrides.now),
    serverId: overrides.serverId ?? (await serverId(config.dataDir)),
    now: overrides.now ?? Date.now,
    ...overrides,
  }
}
