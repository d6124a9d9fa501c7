import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("a server is in no cluster, a control plane with its node count, or a member with its control plane", async () => {
  t = await testApp()
  const get = async () => (await t.call("GET", "/api/cluster")).json()
  expect(await get()).toEqual({ role: "none", server_id: t.ctx.serverId })
  t.ctx.cluster.mint()
  await t.ctx.nodes.register({ server_id: "s-1", name: "a", url: "http://10.0.0.1:8080" })
  expect(await get()).toEqual({ role: "control-plane", server_id: t.ctx.serverId, nodes: 1 })
  t.ctx.cluster.save({ role: "member", token: "tok", control_plane_url: "http://cp:8080", name: "web" })
  const member = await get()
  expect(member).toEqual({
    role: "member",
    server_id: t.ctx.serverId,
    control_plane_url: "http://cp:8080",
    name: "web",
  })
  expect(JSON.stringify(member)).not.toContain("tok")
})
