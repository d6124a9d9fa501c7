import { expect, test } from "bun:test"
import { swarmState } from "#lib/swarm/state.ts"

test("no Swarm member, or inactive: not in a swarm", () => {
  for (const info of [{}, { Swarm: { LocalNodeState: "inactive", NodeID: "", ControlAvailable: false } }])
    expect(swarmState(info)).toEqual({
      active: false,
      state: "inactive",
      role: null,
      cluster_id: null,
      node_id: null,
      node_addr: null,
      managers: [],
      nodes: null,
      error: null,
    })
})

test("a manager and a worker as GET /info shows them", () => {
  const managers = [{ NodeID: "m1", Addr: "10.0.0.10:2377" }]
  const manager = swarmState({
    Swarm: {
      LocalNodeState: "active",
      NodeID: "m1",
      NodeAddr: "10.0.0.10",
      ControlAvailable: true,
      RemoteManagers: managers,
      Nodes: 3,
      Cluster: { ID: "c1" },
    },
  })
  expect(manager).toEqual({
    active: true,
    state: "active",
    role: "manager",
    cluster_id: "c1",
    node_id: "m1",
    node_addr: "10.0.0.10",
    managers: [{ node_id: "m1", addr: "10.0.0.10:2377" }],
    nodes: 3,
    error: null,
  })
  expect(
    swarmState({
      Swarm: { LocalNodeState: "active", NodeID: "w1", ControlAvailable: false, RemoteManagers: managers, Nodes: 0 },
    }),
  ).toMatchObject({ role: "worker", nodes: null, cluster_id: null })
  expect(swarmState({ Swarm: { LocalNodeState: "error", Error: "manager stopped" } })).toMatchObject({
    active: false,
    role: null,
    state: "error",
    error: "manager stopped",
  })
})
