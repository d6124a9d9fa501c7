import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("answers this server's id to the right bearer token only", async () => {
  t = await testApp()
  expect((await t.call("GET", "/api/cluster/verify", undefined, { authorization: "Bearer anything" })).status).toBe(401)
  const token = t.ctx.cluster.mint()
  expect((await t.call("GET", "/api/cluster/verify")).status).toBe(401)
  expect((await t.call("GET", "/api/cluster/verify", undefined, { authorization: `Bearer ${token}x` })).status).toBe(
    401,
  )
  const ok = await t.call("GET", "/api/cluster/verify", undefined, { authorization: `Bearer ${token}` })
  expect(await ok.json()).toEqual({ server_id: t.ctx.serverId })
})
