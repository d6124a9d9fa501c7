import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("one node by id or hostname; an unknown one is 404", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  const worker = [...t.engine.swarm.nodes.values()].find((n) => n.Description.Hostname === "worker1")!
  expect(await (await t.call("GET", `/api/swarm/nodes/${worker.ID}`)).json()).toMatchObject({
    id: worker.ID,
    hostname: "worker1",
    role: "worker",
  })
  expect(await (await t.call("GET", "/api/swarm/nodes/worker1")).json()).toMatchObject({ id: worker.ID })
  expect((await t.call("GET", "/api/swarm/nodes/nosuch")).status).toBe(404)
})
