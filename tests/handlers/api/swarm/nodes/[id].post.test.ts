import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("draining a node moves its tasks off it; labels replace the node's; one event per change", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  t.engine.swarm.addService({ name: "web", replicas: 3 })
  const res = await t.call("POST", "/api/swarm/nodes/worker1", { availability: "drain" })
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ hostname: "worker1", availability: "drain", tasks_running: 0 })
  const nodes = await (await t.call("GET", "/api/swarm/nodes")).json()
  expect(nodes.reduce((n: number, x: any) => n + x.tasks_running, 0)).toBe(3)

  expect(
    await (await t.call("POST", "/api/swarm/nodes/worker1", { labels: { zone: "b" }, availability: "active" })).json(),
  ).toMatchObject({ labels: { zone: "b" }, availability: "active" })
  const update = t.engine.calls.filter((c) => c.op === "updateNode").at(-1)!
  expect(update.args[2]).toMatchObject({ Role: "worker", Availability: "active", Labels: { zone: "b" } })
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "swarm")
      .map((e) => [e.action, e.name]),
  ).toEqual([
    ["node.update", "worker1"],
    ["node.update", "worker1"],
  ])
})

test("bad values are 400 before the engine; an unknown node is 404", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  for (const body of [{}, { availability: "off" }, { labels: { a: 1 } }, { labels: "zone=a" }])
    expect((await t.call("POST", "/api/swarm/nodes/worker1", body)).status).toBe(400)
  expect(t.engine.calls.some((c) => c.op === "updateNode")).toBe(false)
  expect((await t.call("POST", "/api/swarm/nodes/nosuch", { availability: "drain" })).status).toBe(404)
})
