import { afterEach, expect, test } from "bun:test"
import { serveApp, testApp, type TestApp } from "../../../../../support/app.ts"
import { fakeNode, type FakeNode } from "../../../../../support/node.ts"
import { freePort } from "../../../../../support/service.ts"

let t: TestApp
let stop = () => {}
let node: FakeNode | undefined
afterEach(() => {
  node?.stop()
  stop()
  t.close()
})

const upgrade = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
}

test("a WebSocket through the gateway reaches the node's route and echoes both ways", async () => {
  t = await testApp()
  node = fakeNode()
  await t.ctx.nodes.register({ server_id: node.serverId, name: "n", url: node.url })
  const served = serveApp(t)
  stop = served.stop
  const ws = new WebSocket(`${served.url.replace("http", "ws")}/api/nodes/n/proxy/echo`)
  ws.binaryType = "arraybuffer"
  const got: unknown[] = []
  ws.onmessage = (e) => got.push(typeof e.data === "string" ? e.data : [...new Uint8Array(e.data as ArrayBuffer)])
  await new Promise((r) => (ws.onopen = r))
  ws.send("ping")
  ws.send(new Uint8Array([9, 8]))
  while (got.length < 3) await Bun.sleep(5)
  expect(got).toEqual(["hi", "ping", [9, 8]])
  ws.close()
})

test("the upgrade is refused with 404 for an unknown node, 502 for one that does not answer, and as the node refused it", async () => {
  t = await testApp()
  node = fakeNode()
  await t.ctx.nodes.register({ server_id: node.serverId, name: "n", url: node.url })
  await t.ctx.nodes.register({ server_id: "s", name: "down", url: `http://127.0.0.1:${await freePort()}` })
  const served = serveApp(t)
  stop = served.stop
  expect((await fetch(`${served.url}/api/nodes/ghost/proxy/echo`, { headers: upgrade })).status).toBe(404)
  const res = await fetch(`${served.url}/api/nodes/down/proxy/echo`, { headers: upgrade })
  expect(res.status).toBe(502)
  expect((await res.json()).error.code).toBe("node_unreachable")
  const refused = await fetch(`${served.url}/api/nodes/n/proxy/api/cluster/verify`, { headers: upgrade })
  expect(refused.status).toBe(401)
  expect((await refused.json()).error).toEqual({
    code: "upgrade_refused",
    message: 'node "n" answered the WebSocket upgrade with HTTP 401',
  })
  const notSocket = await fetch(`${served.url}/api/nodes/n/proxy/created`, { headers: upgrade })
  expect(notSocket.status).toBe(502)
  expect((await notSocket.json()).error.code).toBe("upgrade_refused")
})
