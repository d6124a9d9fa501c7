// The one event each change of the swarm publishes on the bus (never a join token).
import type { EventBus } from "../engine/events.ts"

export type SwarmEvents = Pick<EventBus, "publish">

export function swarmEvent(
  events: SwarmEvents,
  action: string,
  message: string,
  target: { id?: string; name?: string } = {},
): void {
  events.publish({ type: "swarm", action, message, ...target })
}
