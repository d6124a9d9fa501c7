import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("every service with its replicas, stack and ports: one GET /services and one GET /tasks", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  t.engine.swarm.addService({
    name: "shop_web",
    replicas: 2,
    labels: { "com.docker.stack.namespace": "shop" },
    ports: [{ Protocol: "tcp", TargetPort: 80, PublishedPort: 8080, PublishMode: "host" }],
  })
  t.engine.swarm.addService({ name: "agent", global: true })
  t.engine.calls = []
  const res = await t.call("GET", "/api/swarm/services")
  expect(res.status).toBe(200)
  const services = await res.json()
  expect(services.map((s: any) => [s.name, s.mode, s.replicas, s.stack])).toEqual([
    ["agent", "global", { desired: 3, running: 3 }, null],
    ["shop_web", "replicated", { desired: 2, running: 2 }, "shop"],
  ])
  expect(services[1].ports).toEqual([{ protocol: "tcp", target: 80, published: 8080, mode: "host" }])
  expect(t.engine.calls.map((c) => c.op).sort()).toEqual(["listServices", "listTasks"])
})

test("stack= lists that stack's services; not a manager is 409", async () => {
  t = await testApp()
  expect((await t.call("GET", "/api/swarm/services")).status).toBe(409)
  t.engine.swarm.seed(1)
  await t.call("GET", "/api/swarm/services?stack=shop")
  expect(t.engine.calls.filter((c) => c.op === "listServices").at(-1)?.args).toEqual([
    { label: ["com.docker.stack.namespace=shop"] },
  ])
})
