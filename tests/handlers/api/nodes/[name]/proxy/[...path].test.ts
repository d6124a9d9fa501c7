import { afterEach, expect, test } from "bun:test"
import { signProof } from "#lib/cluster/proof.ts"
import { serveApp, testApp, type TestApp } from "../../../../../support/app.ts"
import { authApp } from "../../../../../support/auth.ts"
import { sseMessages } from "../../../../../support/sse.ts"
import { terminal } from "../../../../../support/terminal.ts"
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
  const res = await t.call("PUT", "/api/nodes/n/proxy/created?x=1", new Uint8Array([1, 2, 3]), {
    "content-type": "application/x-tar",
    authorization: "Bearer secret",
  })
  expect(res.status).toBe(201)
  const seen = await res.json()
  expect(seen).toMatchObject({
    method: "PUT",
    path: "/created?x=1",
    bytes: 3,
    headers: { "content-type": "application/x-tar" },
  })
  expect(seen.headers.authorization).toBeUndefined()
})

test("a node not in the registry is 404; a node that does not answer is 502", async () => {
  t = await testApp()
  expect((await t.call("GET", "/api/nodes/ghost/proxy/api/health")).status).toBe(404)
  await t.ctx.nodes.register({ server_id: "s", name: "down", url: `http://127.0.0.1:${await freePort()}` })
  const res = await t.call("POST", "/api/nodes/down/proxy/api/stacks", { a: 1 })
  expect(res.status).toBe(502)
  expect((await res.json()).error).toMatchObject({
    code: "node_unreachable",
    message: expect.stringContaining('node "down"'),
  })
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

test("with sign-in on both sides, the gateway's calls reach the member as the caller signed in on the control plane, via it; the member's own door stays shut", async () => {
  const cp = await authApp()
  const member = await authApp()
  const served = [serveApp(cp), serveApp(member)]
  try {
    for (const s of [cp, member]) await s.addUser("alice", "admin")
    const [atCp, atMember] = [await cp.signIn("alice"), await member.signIn("alice")]
    const token = cp.ctx.cluster.mint()
    const joined = await member.call(
      "POST",
      "/api/cluster/join",
      { control_plane_url: served[0]!.url, token, name: "m", advertise: served[1]!.url },
      { cookie: atMember },
    )
    expect((await joined.json()).node.status).toBe("online")
    expect(await member.ctx.cluster.read()).toMatchObject({ control_plane_id: cp.ctx.serverId })
    member.engine.addContainer({ name: "web" })

    // JSON, a change, and an event stream, through the gateway with the control plane's session only
    const listed = await cp.call("GET", "/api/nodes/m/proxy/api/containers?all=true", undefined, {
      cookie: atCp,
      "x-hm-proof": "v1.from.the-client",
    })
    expect(listed.status).toBe(200)
    expect((await listed.json()).map((c: { name: string }) => c.name)).toContain("web")
    const created = await cp.call(
      "POST",
      "/api/nodes/m/proxy/api/users",
      { name: "bob", password: "a long password", role: "viewer" },
      { cookie: atCp },
    )
    expect(created.status).toBe(201)
    const follow = new AbortController()
    void member.ctx.events.follow(member.engine, follow.signal)
    const stream = await cp.call("GET", "/api/nodes/m/proxy/api/events", undefined, { cookie: atCp })
    expect(stream.headers.get("content-type")).toBe("text/event-stream")
    const messages = sseMessages(stream)
    const first = messages.next()
    while (member.ctx.events.subscriberCount === 0) await Bun.sleep(1)
    member.engine.emit("container", "start", "abc123", { name: "web", image: "busybox" })
    expect((await first).value).toMatchObject({ type: "container", action: "start", name: "web" })
    await messages.return(undefined)
    follow.abort()

    // The shell over the gateway's WebSocket
    const shell = await terminal(
      `${served[0]!.url.replace("http:", "ws:")}/api/nodes/m/proxy/api/containers/web/shell`,
      { headers: { cookie: atCp, origin: served[0]!.url } },
    )
    shell.type("hello")
    await shell.waitFor(/hello/)
    shell.ws.close()
    await shell.closed

    // The member's audit names alice coming through the control plane (the shell's close is written as its socket ends)
    const through = async () => {
      const { entries } = await (
        await member.call("GET", "/api/audit?user=alice", undefined, { cookie: atMember })
      ).json()
      return entries
        .filter((e: { via?: string }) => e.via === cp.ctx.serverId)
        .map((e: any) => `${e.action ?? e.method} ${e.route} ${e.status} ${e.source} ${e.role}`) as string[]
    }
    for (let i = 0; i < 100 && !(await through()).some((e) => e.startsWith("ws.close")); i++) await Bun.sleep(10)
    expect(await through()).toEqual(
      expect.arrayContaining([
        "POST /api/users 201 cluster admin",
        "ws.open /api/containers/:id/shell 101 cluster admin",
        "ws.close /api/containers/:id/shell 101 cluster admin",
      ]),
    )

    // Directly: no credential, a made-up proof, a replayed one, and a role the route's table refuses
    const direct = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${served[1]!.url}${path}`, { headers })
    expect((await direct("/api/containers")).status).toBe(401)
    const madeUp = await direct("/api/containers", { "x-hm-proof": "v1.from.the-client" })
    expect(madeUp.status).toBe(401)
    expect((await madeUp.json()).error.message).toBe("the gateway's proof is refused: malformed")
    const proof = (role: string, path: string) =>
      signProof(token, {
        method: "GET",
        path,
        who: { controlPlane: cp.ctx.serverId, node: member.ctx.serverId, user: "mallory", role },
      })
    const once = proof("admin", "/api/containers")
    expect((await direct("/api/containers", { "x-hm-proof": once })).status).toBe(200)
    const replayed = await direct("/api/containers", { "x-hm-proof": once })
    expect(replayed.status).toBe(401)
    expect((await replayed.json()).error.message).toBe("the gateway's proof is refused: it was used already")
    const low = await direct("/api/audit", { "x-hm-proof": proof("viewer", "/api/audit") })
    expect(low.status).toBe(403)
    expect((await low.json()).error.message).toBe("this needs the admin role; mallory has viewer")
    const refusals = (
      await (
        await member.call("GET", "/api/audit?status_min=401&status_max=403", undefined, { cookie: atMember })
      ).json()
    ).entries
    expect(refusals.map((e: any) => `${e.user} ${e.via ?? "-"} ${e.route} ${e.status}`)).toEqual(
      expect.arrayContaining(["null - /api/containers 401", "mallory " + cp.ctx.serverId + " /api/audit 403"]),
    )

    // A control plane with sign-in off signs nothing: the member refuses its gateway's calls
    cp.ctx.auth.config.modes.clear()
    expect((await cp.call("GET", "/api/nodes/m/proxy/api/containers")).status).toBe(401)
  } finally {
    for (const s of served) s.stop()
    member.close()
    t = cp
  }
})

test("a member with sign-in off answers the gateway as before: the proof is not looked at", async () => {
  const cp = await authApp()
  const member = await testApp()
  const served = [serveApp(cp), serveApp(member)]
  try {
    await cp.addUser("alice", "admin")
    const token = cp.ctx.cluster.mint()
    await member.call("POST", "/api/cluster/join", {
      control_plane_url: served[0]!.url,
      token,
      name: "m",
      advertise: served[1]!.url,
    })
    expect(
      (await cp.call("GET", "/api/nodes/m/proxy/api/containers", undefined, { cookie: await cp.signIn("alice") }))
        .status,
    ).toBe(200)
    expect((await fetch(`${served[1]!.url}/api/containers`, { headers: { "x-hm-proof": "v1.made.up" } })).status).toBe(
      200,
    )
  } finally {
    for (const s of served) s.stop()
    member.close()
    t = cp
  }
})
