import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("a service with its tasks per node (hostname, state, desired state, container); unknown is 404", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  const s = t.engine.swarm.addService({ name: "web", replicas: 3 })
  const res = await t.call("GET", "/api/swarm/services/web")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body).toMatchObject({ id: s.ID, name: "web", replicas: { desired: 3, running: 3 } })
  expect(body.tasks.map((x: any) => x.node).sort()).toEqual(["manager", "worker1", "worker2"])
  expect(body.tasks.every((x: any) => x.state === "running" && x.desired_state === "running" && x.container_id)).toBe(
    true,
  )
  expect((await t.call("GET", "/api/swarm/services/nosuch")).status).toBe(404)
})
