import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("one node, or 404", async () => {
  t = await testApp()
  await t.ctx.nodes.register({ server_id: "s-1", name: "a", url: "http://10.0.0.1:8080" })
  expect(await (await t.call("GET", "/api/nodes/a")).json()).toMatchObject({ name: "a", server_id: "s-1" })
  const missing = await t.call("GET", "/api/nodes/b")
  expect(missing.status).toBe(404)
  expect((await missing.json()).error.code).toBe("node_not_found")
})
