import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("makes the engine a manager with the addresses given, answers its state and publishes one swarm event", async () => {
  t = await testApp()
  const res = await t.call("POST", "/api/swarm/init", { advertise_addr: "10.1.2.3", listen_addr: "0.0.0.0:2377" })
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ active: true, role: "manager", nodes: 1 })
  expect(t.engine.calls.find((c) => c.op === "swarmInit")?.args).toEqual([
    { ListenAddr: "0.0.0.0:2377", AdvertiseAddr: "10.1.2.3" },
  ])
  const events = t.ctx.events.history().filter((e) => e.type === "swarm")
  expect(events.map((e) => e.action)).toEqual(["init"])
  expect(JSON.stringify(events)).not.toContain("SWMTKN")
})

test("in a swarm already: 409; a bad address: 400 before the engine", async () => {
  t = await testApp()
  t.engine.swarm.seed()
  expect((await t.call("POST", "/api/swarm/init", {})).status).toBe(409)
  const res = await t.call("POST", "/api/swarm/init", { advertise_addr: "10.0.0.1; rm -rf /" })
  expect(res.status).toBe(400)
  expect(t.engine.calls.filter((c) => c.op === "swarmInit")).toHaveLength(1)
})
