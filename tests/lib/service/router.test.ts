import { expect, test } from "bun:test"
import { Router } from "#lib/service/router.ts"

const table = () => {
  const t = new Router<string>()
  t.add("POST", "/api/stacks/import", "import")
  t.add("GET", "/api/stacks/:name", "stack")
  t.add("ALL", "/api/nodes/:name/proxy/*", "proxy", "path")
  t.add("WS", "/api/nodes/:name/proxy/*", "proxy-ws", "path")
  t.add("GET", "/api/cluster/streams/:id", "stream")
  t.add("WS", "/api/cluster/streams/:id", "stream-ws")
  return t
}

test("a static segment wins over a parameter for its own method only; other methods fall back to the parameter's route", () => {
  const t = table()
  expect(t.find(["POST", "ALL"], "/api/stacks/import")).toEqual({ route: "import", params: {} })
  expect(t.find(["GET", "ALL"], "/api/stacks/import")).toEqual({ route: "stack", params: { name: "import" } })
  expect(t.find(["DELETE", "ALL"], "/api/stacks/x")).toBeUndefined()
})

test("parameters and the catch-all are decoded, the catch-all under its own name; a trailing slash is ignored", () => {
  const t = table()
  expect(t.find(["GET", "ALL"], "/api/stacks/a%20b/")).toEqual({ route: "stack", params: { name: "a b" } })
  expect(t.find(["PUT", "ALL"], "/api/nodes/n1/proxy/api/stacks/x%2Fy")).toEqual({
    route: "proxy",
    params: { name: "n1", path: "api/stacks/x/y" },
  })
  expect(t.find(["GET", "ALL"], "/api/stacks/%E0%A4%A")?.params).toEqual({ name: "%E0%A4%A" })
  expect(t.find(["GET", "ALL"], "/api/stacks/a/b")).toBeUndefined()
  expect(t.find(["GET", "ALL"], "/api/stacks//")).toBeUndefined()
})

test("the methods are tried in the order given: an upgrade request reaches the WebSocket route before the GET", () => {
  const t = table()
  expect(t.find(["WS", "GET", "ALL"], "/api/cluster/streams/7")?.route).toBe("stream-ws")
  expect(t.find(["GET", "ALL"], "/api/cluster/streams/7")?.route).toBe("stream")
  expect(t.find(["WS", "GET", "ALL"], "/api/nodes/n/proxy/x")?.route).toBe("proxy-ws")
  expect(t.find(["GET", "ALL"], "/api/nodes/n/proxy/x")?.route).toBe("proxy")
})
