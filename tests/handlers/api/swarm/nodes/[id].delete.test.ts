import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("a down node is removed; one that is up only with force; unknown is 404", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  const [w1, w2] = [...t.engine.swarm.nodes.values()].filter((n) => n.Spec.Role === "worker")
  t.engine.swarm.setNodeState(w1!.ID, "down")
  expect(await (await t.call("DELETE", `/api/swarm/nodes/${w1!.ID}`)).json()).toEqual({ id: w1!.ID, removed: true })
  expect((await t.call("DELETE", `/api/swarm/nodes/${w2!.ID}`)).status).toBe(400)
  expect((await t.call("DELETE", `/api/swarm/nodes/${w2!.ID}?force=true`)).status).toBe(200)
  expect((await t.call("DELETE", "/api/swarm/nodes/nosuch")).status).toBe(404)
  expect([...t.engine.swarm.nodes.values()].map((n) => n.Description.Hostname)).toEqual(["manager"])
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "swarm")
      .map((e) => e.action),
  ).toEqual(["node.remove", "node.remove"])
})
