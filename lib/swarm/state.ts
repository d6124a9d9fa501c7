// This engine's place in a swarm, read from GET /info's `Swarm` (no manager needed, no secret in
// it); init, join and leave; the join tokens, for the one route that shows them.
import type { Engine } from "../engine/client.ts"
import { conflict, isDomainError } from "../errors/errors.ts"
import { swarmEvent, type SwarmEvents } from "./events.ts"
import type { SwarmState } from "./schemas.ts"

interface InfoSwarm {
  NodeID?: string
  NodeAddr?: string
  LocalNodeState?: string
  ControlAvailable?: boolean
  Error?: string
  RemoteManagers?: { NodeID: string; Addr: string }[] | null
  Nodes?: number
  Cluster?: { ID?: string }
}

/** The swarm part of an engine's `GET /info` answer. */
export function swarmState(info: { Swarm?: InfoSwarm }): SwarmState {
  const s = info.Swarm ?? {}
  const state = s.LocalNodeState || "inactive"
  const active = state === "active"
  return {
    active,
    state,
    role: active ? (s.ControlAvailable ? "manager" : "worker") : null,
    cluster_id: s.Cluster?.ID || null,
    node_id: s.NodeID || null,
    node_addr: s.NodeAddr || null,
    managers: (s.RemoteManagers ?? []).map((m) => ({ node_id: m.NodeID, addr: m.Addr })),
    nodes: s.ControlAvailable ? (s.Nodes ?? null) : null,
    error: s.Error || null,
  }
}

export const readSwarm = async (engine: Engine): Promise<SwarmState> => swarmState(await engine.info())

export async function initSwarm(
  engine: Engine,
  events: SwarmEvents,
  o: { advertise_addr?: string; listen_addr?: string },
): Promise<SwarmState> {
  const nodeId = await engine.swarmInit({
    ListenAddr: o.listen_addr ?? "0.0.0.0:2377",
    ...(o.advertise_addr ? { AdvertiseAddr: o.advertise_addr } : {}),
  })
  swarmEvent(events, "init", `this engine made a swarm and is its manager (node ${nodeId})`, { id: nodeId })
  return readSwarm(engine)
}

/** Joins a swarm; the token is taken out of whatever the engine answers. */
export async function joinSwarm(
  engine: Engine,
  events: SwarmEvents,
  o: { remote_addrs: string[]; join_token: string; advertise_addr?: string; listen_addr?: string },
): Promise<SwarmState> {
  try {
    await engine.swarmJoin({
      ListenAddr: o.listen_addr ?? "0.0.0.0:2377",
      RemoteAddrs: o.remote_addrs,
      JoinToken: o.join_token,
      ...(o.advertise_addr ? { AdvertiseAddr: o.advertise_addr } : {}),
    })
  } catch (err) {
    if (isDomainError(err)) throw err.withMessage(err.message.replaceAll(o.join_token, "<join token>"))
    throw err
  }
  const state = await readSwarm(engine)
  swarmEvent(
    events,
    "join",
    `this engine joined a swarm through ${o.remote_addrs.join(", ")} as a ${state.role ?? "node"}`,
    { id: state.node_id ?? undefined },
  )
  return state
}

export async function leaveSwarm(engine: Engine, events: SwarmEvents, force: boolean): Promise<SwarmState> {
  const before = await readSwarm(engine)
  if (before.state === "inactive") throw conflict("this engine is not part of a swarm", "not_in_swarm")
  await engine.swarmLeave({ force })
  swarmEvent(events, "leave", `this engine left the swarm${force ? " (forced)" : ""}`, {
    id: before.node_id ?? undefined,
  })
  return readSwarm(engine)
}

/** The tokens that let a worker or a manager join: shown by GET /api/swarm/join-tokens alone. */
export async function joinTokens(engine: Engine): Promise<{ worker: string; manager: string }> {
  const { JoinTokens } = await engine.swarmInspect()
  return { worker: JoinTokens.Worker, manager: JoinTokens.Manager }
}
