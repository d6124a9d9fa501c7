import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("every node by hostname with its role, state, leader and running tasks: one GET /nodes and one GET /tasks", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  t.engine.swarm.addService({ name: "web", replicas: 3 })
  t.engine.calls = []
  const res = await t.call("GET", "/api/swarm/nodes")
  expect(res.status).toBe(200)
  const nodes = await res.json()
  expect(nodes.map((n: any) => [n.hostname, n.role, n.state, n.availability, n.leader, n.tasks_running])).toEqual([
    ["manager", "manager", "ready", "active", true, 1],
    ["worker1", "worker", "ready", "active", false, 1],
    ["worker2", "worker", "ready", "active", false, 1],
  ])
  expect(t.engine.calls.map((c) => c.op).sort()).toEqual(["listNodes", "listTasks"])
})

test("not a manager: 409 not_swarm_manager with the engine's reason", async () => {
  t = await testApp()
  const res = await t.call("GET", "/api/swarm/nodes")
  expect(res.status).toBe(409)
  const { error } = await res.json()
  expect(error.code).toBe("not_swarm_manager")
  expect(error.message).toContain("not a swarm manager")
})
