import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { fakeNode, type FakeNode } from "../../../../support/node.ts"

let t: TestApp
let node: FakeNode
afterEach(() => {
  node.stop()
  t.close()
})

test("probes one node with this cluster's token and records the result", async () => {
  t = await testApp()
  const token = t.ctx.cluster.mint()
  node = fakeNode({ token })
  await t.ctx.nodes.register({ server_id: node.serverId, name: "n", url: node.url })
  expect(await (await t.call("POST", "/api/nodes/n/check")).json()).toMatchObject({
    name: "n",
    status: "online",
    error: null,
    checked_at: expect.any(String),
  })
  t.ctx.cluster.mint()
  expect(await (await t.call("POST", "/api/nodes/n/check")).json()).toMatchObject({ status: "unauthorized" })
  expect((await t.ctx.nodes.get("n")).status).toBe("unauthorized")
  expect((await t.call("POST", "/api/nodes/zz/check")).status).toBe(404)
})
