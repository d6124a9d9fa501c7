import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("promote and demote; any other role is 400", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  expect(await (await t.call("POST", "/api/swarm/nodes/worker1/role", { role: "manager" })).json()).toMatchObject({
    role: "manager",
    reachability: "reachable",
  })
  expect(await (await t.call("POST", "/api/swarm/nodes/worker1/role", { role: "worker" })).json()).toMatchObject({
    role: "worker",
    reachability: null,
  })
  expect((await t.call("POST", "/api/swarm/nodes/worker1/role", { role: "leader" })).status).toBe(400)
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "swarm")
      .map((e) => e.action),
  ).toEqual(["node.promote", "node.demote"])
})
