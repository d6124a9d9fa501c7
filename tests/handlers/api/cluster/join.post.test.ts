import { afterEach, expect, test } from "bun:test"
import { serveApp, testApp, type TestApp } from "../../../support/app.ts"
import { freePort } from "../../../support/service.ts"

const open: { t: TestApp; stop(): void }[] = []
afterEach(() => open.splice(0).forEach((s) => (s.stop(), s.t.close())))

async function server(env: Record<string, string> = {}) {
  const t = await testApp({}, env)
  const served = serveApp(t)
  open.push({ t, stop: served.stop })
  return { t, url: served.url }
}

test("a server joins: registered and probed online by the control plane, keeping the token", async () => {
  const cp = await server()
  const token = cp.t.ctx.cluster.mint()
  const member = await server()
  const res = await member.t.call("POST", "/api/cluster/join", {
    control_plane_url: `${cp.url}/`,
    token,
    name: "m1",
    advertise: member.url,
  })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({
    role: "member",
    control_plane_url: cp.url,
    node: { name: "m1", url: member.url, status: "online", error: null },
  })
  expect(await member.t.ctx.cluster.read()).toMatchObject({
    role: "member",
    token,
    control_plane_url: cp.url,
    name: "m1",
  })
  expect(await cp.t.ctx.nodes.get("m1")).toMatchObject({ server_id: member.t.ctx.serverId, status: "online" })
  // joining its own control plane again renews the entry
  const again = await member.t.call("POST", "/api/cluster/join", {
    control_plane_url: cp.url,
    token,
    name: "m2",
    advertise: member.url,
  })
  expect((await again.json()).node.name).toBe("m2")
  expect((await cp.t.ctx.nodes.list()).map((n) => n.name)).toEqual(["m2"])
})

test("a refused or unanswered join leaves the server as it was", async () => {
  const cp = await server()
  cp.t.ctx.cluster.mint()
  const member = await server()
  const refused = await member.t.call("POST", "/api/cluster/join", {
    control_plane_url: cp.url,
    token: "wrong",
    advertise: member.url,
  })
  expect(refused.status).toBe(403)
  expect((await refused.json()).error).toEqual({
    code: "invalid_token",
    message: "the control plane refused: the token is not this cluster's token",
  })
  expect(await member.t.ctx.cluster.role()).toBe("none")
  const nobody = await member.t.call("POST", "/api/cluster/join", {
    control_plane_url: `http://127.0.0.1:${await freePort()}`,
    token: "t",
    advertise: member.url,
  })
  expect(nobody.status).toBe(502)
  expect(await member.t.ctx.cluster.role()).toBe("none")
  expect(await cp.t.ctx.nodes.list()).toEqual([])
})

test("a control plane does not join; a member does not join another control plane", async () => {
  const cp = await server()
  const token = cp.t.ctx.cluster.mint()
  const res = await cp.t.call("POST", "/api/cluster/join", { control_plane_url: "http://127.0.0.1:1", token })
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("is_control_plane")
  const member = await server()
  member.t.ctx.cluster.save({ role: "member", token, control_plane_url: "http://10.9.9.9:8080" })
  const other = await member.t.call("POST", "/api/cluster/join", { control_plane_url: cp.url, token })
  expect(other.status).toBe(409)
  expect((await other.json()).error.code).toBe("already_member")
  expect((await member.t.ctx.cluster.read())?.control_plane_url).toBe("http://10.9.9.9:8080")
})

test("a server the control plane refuses to register (the control plane itself) stays out", async () => {
  const cp = await server()
  const token = cp.t.ctx.cluster.mint()
  const twin = await testApp({ serverId: cp.t.ctx.serverId })
  open.push({ t: twin, stop: () => {} })
  const res = await twin.call("POST", "/api/cluster/join", { control_plane_url: cp.url, token, advertise: cp.url })
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("self_registration")
  expect(await twin.ctx.cluster.role()).toBe("none")
})
