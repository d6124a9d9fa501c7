import { afterEach, expect, test } from "bun:test"
import { serveApp, testApp, type TestApp } from "../../../support/app.ts"
import { fakeNode, type FakeNode } from "../../../support/node.ts"

let t: TestApp
const nodes: FakeNode[] = []
afterEach(() => {
  nodes.splice(0).forEach((n) => n.stop())
  t.close()
})

async function controlPlane() {
  t = await testApp()
  const token = t.ctx.cluster.mint()
  const node = fakeNode({ token })
  nodes.push(node)
  return { token, node }
}

test("a valid token registers the node by server_id, probes it and returns the settled entry", async () => {
  const { token, node } = await controlPlane()
  const res = await t.call("POST", "/api/cluster/register", {
    token,
    server_id: node.serverId,
    name: "web",
    advertise: `${node.url}/`,
  })
  expect(res.status).toBe(201)
  expect(await res.json()).toEqual({
    name: "web",
    url: node.url,
    status: "online",
    error: null,
    control_plane_id: t.ctx.serverId,
  })
  expect(await t.ctx.nodes.get("web")).toMatchObject({ server_id: node.serverId, status: "online" })
  const again = await t.call("POST", "/api/cluster/register", {
    token,
    server_id: node.serverId,
    name: "web",
    advertise: node.url,
  })
  expect(again.status).toBe(200)
})

test("without advertise the connection's peer address and the joiner's port make the URL; no name gives node-<id>", async () => {
  const { token, node } = await controlPlane()
  const served = serveApp(t)
  try {
    const res = await fetch(`${served.url}/api/cluster/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, server_id: node.serverId, port: node.port }),
    })
    expect(await res.json()).toEqual({
      name: `node-${node.serverId.slice(0, 8)}`,
      url: `http://127.0.0.1:${node.port}`,
      status: "online",
      error: null,
      control_plane_id: t.ctx.serverId,
    })
  } finally {
    served.stop()
  }
})

test("refused: a wrong token (403), a taken name (409), the control plane itself (409), a server that is no control plane (409)", async () => {
  const { token, node } = await controlPlane()
  const call = async (body: object) => {
    const res = await t.call("POST", "/api/cluster/register", {
      token,
      server_id: node.serverId,
      advertise: node.url,
      ...body,
    })
    return [res.status, (await res.json()).error?.code]
  }
  expect(await call({ token: "wrong" })).toEqual([403, "invalid_token"])
  expect(await call({ name: "a" })).toEqual([201, undefined])
  expect(await call({ name: "a", server_id: "someone-else" })).toEqual([409, "name_taken"])
  expect(await call({ server_id: t.ctx.serverId })).toEqual([409, "self_registration"])
  expect(await call({ name: "bad/name" })).toEqual([400, "invalid_request"])
  expect(await call({ advertise: "ftp://x" })).toEqual([400, "invalid_request"])
  t.ctx.cluster.save({ role: "member", token, control_plane_url: "http://cp:8080" })
  expect(await call({})).toEqual([409, "not_control_plane"])
  t.ctx.cluster.forget()
  expect(await call({})).toEqual([409, "not_control_plane"])
  expect((await t.ctx.nodes.list()).map((n) => n.name)).toEqual(["a"])
})

test("a node that cannot be reached is registered all the same, offline", async () => {
  const { token, node } = await controlPlane()
  node.stop()
  const res = await t.call("POST", "/api/cluster/register", {
    token,
    server_id: node.serverId,
    name: "gone",
    advertise: node.url,
  })
  expect(res.status).toBe(201)
  expect(await res.json()).toMatchObject({ name: "gone", status: "offline", error: expect.any(String) })
})
