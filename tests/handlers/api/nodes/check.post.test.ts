import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"
import { fakeNode } from "../../../support/node.ts"

let t: TestApp
const stops: (() => void)[] = []
afterEach(() => {
  stops.splice(0).forEach((stop) => stop())
  t.close()
})

/** Nodes whose health answers only once every one of them has been asked: sequential probes would leave them offline. */
function gatedNodes(count: number) {
  const all = Promise.withResolvers<void>()
  let asked = 0
  return Array.from({ length: count }, () => {
    const serverId = crypto.randomUUID()
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        if (new URL(req.url).pathname !== "/api/health") return Response.json({ server_id: serverId })
        if (++asked === count) all.resolve()
        await all.promise
        return Response.json({ server_id: serverId })
      },
    })
    stops.push(() => server.stop(true))
    return { serverId, url: `http://127.0.0.1:${server.port}` }
  })
}

test("probes every node in parallel, each within the deadline, and returns all by name", async () => {
  t = await testApp({}, { SVC_PROBE_TIMEOUT_MS: "2000" })
  t.ctx.cluster.mint()
  for (const [i, n] of gatedNodes(3).entries())
    await t.ctx.nodes.register({ server_id: n.serverId, name: `gated${i}`, url: n.url })
  const stuck = fakeNode({ hang: true })
  stops.push(stuck.stop)
  await t.ctx.nodes.register({ server_id: stuck.serverId, name: "stuck", url: stuck.url })
  const all = await (await t.call("POST", "/api/nodes/check")).json()
  expect(all.map((n: { name: string; status: string }) => [n.name, n.status])).toEqual([
    ["gated0", "online"],
    ["gated1", "online"],
    ["gated2", "online"],
    ["stuck", "offline"],
  ])
  expect(all[3].error).toBe("no answer within 2000 ms")
  expect((await t.ctx.nodes.get("stuck")).status).toBe("offline")
})

test("a node that goes offline is an error event once, and a node_offline notification", async () => {
  const received: { event: string; message: string }[] = []
  const hook = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => (received.push(await req.json()), new Response(null, { status: 204 })),
  })
  stops.push(() => hook.stop(true))
  t = await testApp({}, { SVC_NOTIFY_URLS: `http://127.0.0.1:${hook.port}/hook` })
  const following = new AbortController()
  stops.push(() => following.abort())
  void t.ctx.notifier.follow(t.ctx.events, following.signal, async () => 0)
  const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() })
  const url = `http://127.0.0.1:${gone.port}`
  gone.stop(true)
  await t.ctx.nodes.register({ server_id: "s-gone", name: "gone", url })
  for (let i = 0; i < 2; i++) expect((await t.call("POST", "/api/nodes/check")).status).toBe(200)
  const offline = t.ctx.events.history().filter((e) => e.type === "node" && e.action === "offline")
  expect(offline).toHaveLength(1)
  expect(offline[0]).toMatchObject({ name: "gone", level: "error", message: expect.stringContaining(url) })
  await t.ctx.notifier.idle()
  expect(received).toEqual([
    expect.objectContaining({ event: "node_offline", message: expect.stringContaining("node gone") }),
  ])
})
