import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultName, NodeRegistry, nodeUrl } from "#lib/cluster/nodes.ts"

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const registry = () =>
  new NodeRegistry(dirs[dirs.push(mkdtempSync(join(tmpdir(), "hm-nodes-"))) - 1]!, () => Date.UTC(2026, 0, 1))

test("nodes are keyed by server_id, listed by name, and survive a new registry on the same dir", async () => {
  const nodes = registry()
  expect((await nodes.register({ server_id: "s-2", name: "zeta", url: "http://10.0.0.2:8080" })).created).toBe(true)
  await nodes.register({ server_id: "s-1", name: "alpha", url: "http://10.0.0.1:8080" })
  expect((await nodes.list()).map((n) => n.name)).toEqual(["alpha", "zeta"])
  expect(await nodes.get("zeta")).toMatchObject({
    server_id: "s-2",
    status: "unknown",
    error: "not probed yet",
    registered_at: "2026-01-01T00:00:00.000Z",
    checked_at: null,
  })
  const again = new NodeRegistry(dirs[0]!)
  expect((await again.list()).length).toBe(2)
})

test("a taken name is refused with 409 for another server; the same server may join again and rename", async () => {
  const nodes = registry()
  await nodes.register({ server_id: "s-1", name: "web", url: "http://10.0.0.1:8080" })
  const taken = await nodes.register({ server_id: "s-2", name: "web", url: "http://10.0.0.2:8080" }).catch((e) => e)
  expect(taken).toMatchObject({ kind: "conflict", code: "name_taken" })
  const renewed = await nodes.register({ server_id: "s-1", name: "web-1", url: "http://10.0.0.9:8080" })
  expect(renewed.created).toBe(false)
  expect((await nodes.list()).map((n) => [n.name, n.url])).toEqual([["web-1", "http://10.0.0.9:8080"]])
  await nodes.register({ server_id: "s-2", name: "web", url: "http://10.0.0.2:8080" })
  expect((await nodes.list()).map((n) => n.name)).toEqual(["web", "web-1"])
})

test("concurrent registrations are serialised: none is lost", async () => {
  const nodes = registry()
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      nodes.register({ server_id: `s-${i}`, name: `n${String(i).padStart(2, "0")}`, url: `http://10.0.0.${i}:8080` }),
    ),
  )
  expect((await nodes.list()).length).toBe(20)
})

test("a probe result is recorded, but never brings back a node that left or moved meanwhile", async () => {
  const nodes = registry()
  const { node } = await nodes.register({ server_id: "s-1", name: "a", url: "http://10.0.0.1:8080" })
  expect(await nodes.settle(node, { status: "online", error: null })).toMatchObject({
    status: "online",
    error: null,
    checked_at: "2026-01-01T00:00:00.000Z",
  })
  expect((await nodes.get("a")).status).toBe("online")
  await nodes.register({ server_id: "s-1", name: "a", url: "http://10.0.0.7:8080" })
  await nodes.settle(node, { status: "offline", error: "gone" })
  expect(await nodes.get("a")).toMatchObject({ url: "http://10.0.0.7:8080", status: "unknown" })
  await nodes.remove("a")
  await nodes.settle(node, { status: "online", error: null })
  expect(await nodes.list()).toEqual([])
})

test("removal by name, optionally only when the name is still that server's", async () => {
  const nodes = registry()
  await nodes.register({ server_id: "s-1", name: "a", url: "http://10.0.0.1:8080" })
  expect(await nodes.remove("a", "s-other").catch((e) => e)).toMatchObject({
    kind: "not_found",
    code: "node_not_found",
  })
  expect((await nodes.remove("a", "s-1")).server_id).toBe("s-1")
  expect(await nodes.get("a").catch((e) => e)).toMatchObject({ kind: "not_found" })
})

test("a node's URL comes from advertise, else from the peer address and the port it listens on", () => {
  expect(nodeUrl("http://node.lan:9000/", "10.0.0.1", 8081)).toBe("http://node.lan:9000")
  expect(nodeUrl(undefined, "10.0.0.1", 8081)).toBe("http://10.0.0.1:8081")
  expect(nodeUrl(undefined, "::ffff:10.0.0.1")).toBe("http://10.0.0.1:8080")
  expect(nodeUrl(undefined, "fd00::5", 8081)).toBe("http://[fd00::5]:8081")
  expect(() => nodeUrl(undefined, undefined)).toThrow(/advertise/)
  expect(defaultName("9A6F8198-c89f-48a3")).toBe("node-9a6f8198")
})
