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
  for (const [i, n] of gatedNodes(3).entries()) await t.ctx.nodes.register({ server_id: n.serverId, name: `gated${i}`, url: n.url })
  const stuck = fakeNode({ hang: true })
  stops.push(stuck.stop)
  await t.ctx.nodes.register({ server_id: stuck.serverId, name: "stuck", url: stuck.url })
  const all = await (await t.call("POST", "/api/nodes/check")).json()
  expect(all.map((n: { name: string; status: string }) => [n.name, n.status])).toEqual([["gated0", "online"], ["gated1", "online"], ["gated2", "online"], ["stuck", "offline"]])
  expect(all[3].error).toBe("no answer within 2000 ms")
  expect((await t.ctx.nodes.get("stuck")).status).toBe("offline")
})
