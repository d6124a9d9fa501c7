import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("the swarm's own rollback (rollback=previous) after a scale; none before any update is 409 no_previous_spec", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  t.engine.swarm.addService({ name: "web", replicas: 1 })
  const refused = await t.call("POST", "/api/swarm/services/web/rollback")
  expect(refused.status).toBe(409)
  expect((await refused.json()).error.code).toBe("no_previous_spec")
  await t.call("POST", "/api/swarm/services/web/scale", { replicas: 3 })
  const res = await t.call("POST", "/api/swarm/services/web/rollback")
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({
    replicas: { desired: 1, running: 1 },
    update_status: { state: "rollback_completed" },
  })
  expect(t.engine.calls.filter((c) => c.op === "updateService").map((c) => c.args[3])).toEqual([
    {},
    { rollback: "previous" },
  ])
})
