import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("the tokens with the cluster token, 401 without it", async () => {
  t = await testApp()
  t.engine.swarm.seed()
  const cluster = t.ctx.cluster.mint()
  expect((await t.call("GET", "/api/swarm/join-tokens")).status).toBe(401)
  expect((await t.call("GET", "/api/swarm/join-tokens", undefined, { authorization: "Bearer wrong" })).status).toBe(401)
  const res = await t.call("GET", "/api/swarm/join-tokens", undefined, { authorization: `Bearer ${cluster}` })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ worker: t.engine.swarm.tokens.Worker, manager: t.engine.swarm.tokens.Manager })
})

test("not a manager: 409 not_swarm_manager", async () => {
  t = await testApp()
  const cluster = t.ctx.cluster.mint()
  const res = await t.call("GET", "/api/swarm/join-tokens", undefined, { authorization: `Bearer ${cluster}` })
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("not_swarm_manager")
})
