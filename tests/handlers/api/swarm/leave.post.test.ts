import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("a manager leaves only with force; the engine is inactive afterwards, one leave event", async () => {
  t = await testApp()
  t.engine.swarm.seed()
  const refused = await t.call("POST", "/api/swarm/leave", {})
  expect(refused.status).toBe(409)
  const res = await t.call("POST", "/api/swarm/leave", { force: true })
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ active: false, state: "inactive" })
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "swarm")
      .map((e) => e.action),
  ).toEqual(["leave"])
})

test("no body is no force; not in a swarm is 409 not_in_swarm; force must be a boolean", async () => {
  t = await testApp()
  const res = await t.call("POST", "/api/swarm/leave")
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("not_in_swarm")
  expect((await t.call("POST", "/api/swarm/leave", { force: "yes" })).status).toBe(400)
})
