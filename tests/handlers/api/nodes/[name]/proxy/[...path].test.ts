import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"
import { fakeNode, type FakeNode } from "../../../../../support/node.ts"
import { freePort } from "../../../../../support/service.ts"

let t: TestApp
let node: FakeNode | undefined
afterEach(() => {
  node?.stop()
  t.close()
})

test("forwards any method, body and query to the node, without Authorization; the answer comes back as it was", async () => {
  t = await testApp()
  node = fakeNode()
  await t.ctx.nodes.register({ server_id: node.serverId, name: "n", url: node.url })
  const res = await t.call("PUT", "/api/nodes/n/proxy/created?x=1", new Uint8Array([1, 2, 3]), { "content-type": "application/x-tar", authorization: "Bearer secret" })
  expect(res.status).toBe(201)
  const seen = await res.json()
  expect(seen).toMatchObject({ method: "PUT", path: "/created?x=1", bytes: 3, headers: { "content-type": "application/x-tar" } })
  expect(seen.headers.authorization).toBeUndefined()
})

test("a node not in the registry is 404; a node that does not answer is 502", async () => {
  t = await testApp()
  expect((await t.call("GET", "/api/nodes/ghost/proxy/api/health")).status).toBe(404)
  await t.ctx.nodes.register({ server_id: "s", name: "down", url: `http://127.0.0.1:${await freePort()}` })
  const res = await t.call("POST", "/api/nodes/down/proxy/api/stacks", { a: 1 })
  expect(res.status).toBe(502)
  expect((await res.json()).error).toMatchObject({ code: "node_unreachable", message: expect.stringContaining('node "down"') })
})
