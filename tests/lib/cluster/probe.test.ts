import { afterEach, expect, test } from "bun:test"
import { probe } from "#lib/cluster/probe.ts"
import { freePort } from "../../support/service.ts"
import { fakeNode, type FakeNode } from "../../support/node.ts"

let node: FakeNode | undefined
afterEach(() => node?.stop())

test("a node that answers with its server_id and accepts the token is online", async () => {
  node = fakeNode({ token: "t1" })
  expect(await probe(node.url, node.serverId, "t1", 2000)).toEqual({ status: "online", error: null })
})

test("a node that refuses the token is unauthorized; no token at all is refused too", async () => {
  node = fakeNode({ token: "t1" })
  expect(await probe(node.url, node.serverId, "t-old", 2000)).toEqual({
    status: "unauthorized",
    error: "the node refuses this cluster's token",
  })
  expect((await probe(node.url, node.serverId, undefined, 2000)).status).toBe("unauthorized")
})

test("another server at the node's address is not online, whatever token it takes", async () => {
  node = fakeNode({ token: "t1" })
  const result = await probe(node.url, "registered-id", "t1", 2000)
  expect(result.status).toBe("unknown")
  expect(result.error).toContain(`answered as server ${node.serverId}, registered as registered-id`)
})

test("nothing listening, or no answer within the deadline, is offline", async () => {
  const closed = await probe(`http://127.0.0.1:${await freePort()}`, "x", "t", 2000)
  expect(closed.status).toBe("offline")
  expect(closed.error).toBeTruthy()
  node = fakeNode({ hang: true })
  expect(await probe(node.url, node.serverId, "t", 150)).toEqual({
    status: "offline",
    error: "no answer within 150 ms",
  })
})

test("a node that refuses the probe says why", async () => {
  const picky = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      Response.json(
        { error: { code: "host_not_allowed", message: 'host "n1.lan" is not one this server answers to' } },
        { status: 403 },
      ),
  })
  try {
    expect(await probe(`http://127.0.0.1:${picky.port}`, "x", "t", 2000)).toEqual({
      status: "unknown",
      error: 'health check answered HTTP 403: host "n1.lan" is not one this server answers to',
    })
  } finally {
    picky.stop(true)
  }
})

test("something that is not this service is unknown", async () => {
  const other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === "/api/health" ? new Response("<html>") : new Response("", { status: 500 }),
  })
  try {
    expect(await probe(`http://127.0.0.1:${other.port}`, "x", "t", 2000)).toEqual({
      status: "unknown",
      error: "health check answered without a server_id: not this service",
    })
  } finally {
    other.stop(true)
  }
})
