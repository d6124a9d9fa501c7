import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("an engine in no swarm is inactive, with no role", async () => {
  t = await testApp()
  const res = await t.call("GET", "/api/swarm")
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({
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

test("a manager: its cluster, node, managers and node count, read from GET /info alone, never a join token", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  const body = await (await t.call("GET", "/api/swarm")).json()
  expect(body).toMatchObject({
    active: true,
    state: "active",
    role: "manager",
    cluster_id: t.engine.swarm.clusterId,
    node_id: t.engine.swarm.selfId,
    nodes: 3,
  })
  expect(body.managers).toHaveLength(1)
  expect(JSON.stringify(body)).not.toContain("SWMTKN")
  expect(t.engine.calls.filter((c) => c.op !== "info")).toEqual([])
})

test("a worker: role worker, no cluster id or node count", async () => {
  t = await testApp()
  t.engine.swarm.seed(0)
  t.engine.swarm.role = "worker"
  expect(await (await t.call("GET", "/api/swarm")).json()).toMatchObject({
    active: true,
    role: "worker",
    cluster_id: null,
    nodes: null,
  })
})
