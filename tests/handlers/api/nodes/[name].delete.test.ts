import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("drops the node and its gateway route; with server_id only if the name is still that server's", async () => {
  t = await testApp()
  await t.ctx.nodes.register({ server_id: "s-1", name: "a", url: "http://10.0.0.1:8080" })
  expect((await t.call("DELETE", "/api/nodes/a?server_id=s-2")).status).toBe(404)
  const res = await t.call("DELETE", "/api/nodes/a?server_id=s-1")
  expect(await res.json()).toMatchObject({ name: "a", server_id: "s-1" })
  expect((await t.call("GET", "/api/nodes/a/proxy/api/health")).status).toBe(404)
  expect((await t.call("DELETE", "/api/nodes/a")).status).toBe(404)
})
