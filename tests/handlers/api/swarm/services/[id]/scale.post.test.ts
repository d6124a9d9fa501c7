import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("scales up and down with the version read, one event each", async () => {
  t = await testApp()
  t.engine.swarm.seed(2)
  const s = t.engine.swarm.addService({ name: "web", replicas: 1 })
  expect(await (await t.call("POST", "/api/swarm/services/web/scale", { replicas: 4 })).json()).toMatchObject({
    replicas: { desired: 4, running: 4 },
  })
  expect(await (await t.call("POST", `/api/swarm/services/${s.ID}/scale`, { replicas: 0 })).json()).toMatchObject({
    replicas: { desired: 0, running: 0 },
  })
  expect(t.engine.calls.filter((c) => c.op === "updateService").map((c) => c.args[1])).toEqual([1, 2])
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "swarm")
      .map((e) => e.message),
  ).toEqual(["service web scaled to 4", "service web scaled to 0"])
})

test("-1, 1.5 or a string is 400; a global service is 409 not_replicated; unknown is 404", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  t.engine.swarm.addService({ name: "agent", global: true })
  for (const replicas of [-1, 1.5, "3", null])
    expect((await t.call("POST", "/api/swarm/services/agent/scale", { replicas })).status).toBe(400)
  const res = await t.call("POST", "/api/swarm/services/agent/scale", { replicas: 2 })
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("not_replicated")
  expect(t.engine.calls.some((c) => c.op === "updateService")).toBe(false)
  expect((await t.call("POST", "/api/swarm/services/nosuch/scale", { replicas: 2 })).status).toBe(404)
})
