import { afterEach, expect, test } from "bun:test"
import { serveApp, testApp, type TestApp } from "../../../support/app.ts"

const open: { t: TestApp; stop(): void }[] = []
afterEach(() => open.splice(0).forEach((s) => (s.stop(), s.t.close())))

async function cluster() {
  const cp = await testApp()
  const cpServed = serveApp(cp)
  const member = await testApp()
  const memberServed = serveApp(member)
  open.push({ t: cp, stop: cpServed.stop }, { t: member, stop: memberServed.stop })
  const token = cp.ctx.cluster.mint()
  const joined = await member.call("POST", "/api/cluster/join", {
    control_plane_url: cpServed.url,
    token,
    name: "m1",
    advertise: memberServed.url,
  })
  expect(joined.status).toBe(200)
  return { cp, member, stopControlPlane: cpServed.stop }
}

test("a member asks the control plane to drop its entry, then forgets", async () => {
  const { cp, member } = await cluster()
  const res = await member.call("DELETE", "/api/cluster/membership")
  expect(await res.json()).toEqual({ left: true, removed: true, error: null })
  expect(await member.ctx.cluster.role()).toBe("none")
  expect(await cp.ctx.nodes.list()).toEqual([])
})

test("a member forgets even when its control plane cannot be reached, and says so", async () => {
  const { cp, member, stopControlPlane } = await cluster()
  stopControlPlane()
  const body = await (await member.call("DELETE", "/api/cluster/membership")).json()
  const { token } = (await cp.ctx.cluster.read())!
  expect(body.error).toContain("did not answer")
  expect(body.error).not.toContain(token)
  expect(body).toMatchObject({ left: true, removed: false })
  expect(await member.ctx.cluster.role()).toBe("none")
  expect((await cp.ctx.nodes.list()).length).toBe(1)
})

test("an entry the control plane no longer has is reported, and the member forgets all the same", async () => {
  const { cp, member } = await cluster()
  await cp.ctx.nodes.remove("m1")
  const body = await (await member.call("DELETE", "/api/cluster/membership")).json()
  expect(body).toMatchObject({ left: true, removed: false, error: expect.stringContaining('no node named "m1"') })
  expect(await member.ctx.cluster.role()).toBe("none")
})

test("a control plane that leaves retires its token; a server in no cluster has nothing to leave", async () => {
  const { cp } = await cluster()
  expect(await (await cp.call("DELETE", "/api/cluster/membership")).json()).toEqual({
    left: true,
    removed: false,
    error: null,
  })
  expect((await cp.call("GET", "/api/cluster/token")).status).toBe(404)
  expect(await (await cp.call("DELETE", "/api/cluster/membership")).json()).toEqual({
    left: false,
    removed: false,
    error: "this server is in no cluster",
  })
})
