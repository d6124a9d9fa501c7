import { afterEach, expect, test } from "bun:test"
import { serveApp, testApp, type TestApp } from "../../../../../support/app.ts"
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

test("a client leaving an SSE stream through the gateway closes the node's stream", async () => {
  t = await testApp()
  node = fakeNode()
  await t.ctx.nodes.register({ server_id: node.serverId, name: "n", url: node.url })
  const served = serveApp(t)
  try {
    const res = await fetch(`${served.url}/api/nodes/n/proxy/sse`)
    const reader = res.body!.getReader()
    node.emit({ n: 1 })
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(": open")
    expect(node.openStreams()).toBe(1)
    await reader.cancel()
    while (node.openStreams() > 0) {
      node.emit({ ping: true }) // a write is how the node's server learns that the gateway hung up
      await Bun.sleep(20)
    }
    expect(node.openStreams()).toBe(0)
  } finally {
    served.stop()
  }
})
