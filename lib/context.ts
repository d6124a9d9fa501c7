// The one object every handler gets: built once at start, or by a test with a fake engine.
import type { Config } from "./config.ts"
import { dockerEngine, type Engine } from "./engine.ts"
import { EventBus } from "./events.ts"
import { serverId } from "./identity.ts"

export interface Ctx {
  config: Config
  engine: Engine
  events: EventBus
  serverId: string
  /** Wall clock in milliseconds; tests may pin it. */
  now: () => number
}

export async function createContext(config: Config, overrides: Partial<Ctx> = {}): Promise<Ctx> {
  return {
    config,
    engine: overrides.engine ?? dockerEngine(config.dockerHost),
    events: overrides.events ?? new EventBus(),
    serverId: overrides.serverId ?? (await serverId(config.dataDir)),
    now: overrides.now ?? Date.now,
    ...overrides,
  }
}
