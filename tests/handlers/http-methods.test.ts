// HTTP as clients expect it, on every route of /openapi: HEAD answers a GET route with its headers and
// no body, a method the path does not serve is 405 with Allow, and OPTIONS answers with Allow (and
// CORS headers for an allowed origin, none for another).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { testApp, type TestApp } from "../support/app.ts"

let t: TestApp
let paths: [string, string[]][]
/** Whether another route of the document answers `method` at `path` (GET /api/backups/{repo}/{stack} at .../x/check). */
let servedElsewhere: (method: string, path: string) => boolean
beforeAll(async () => {
  t = await testApp({}, { SVC_CORS_ORIGINS: "https://ui.example" })
  const doc = await (await t.call("GET", "/openapi")).json()
  const entries = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
  paths = entries.map(([path, ops]) => [path.replace(/\{[^}]+\}/g, "x"), Object.keys(ops).map((m) => m.toUpperCase())])
  const patterns = entries.map(([path, ops]) => ({
    re: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    methods: Object.keys(ops).map((m) => m.toUpperCase()),
  }))
  servedElsewhere = (method, path) => patterns.some((p) => p.methods.includes(method) && p.re.test(path))
})
afterAll(() => t.close())

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]

test("the document has the routes to walk", () => {
  expect(paths.length).toBeGreaterThan(100)
})

test("HEAD on every GET route answers as GET would, without a body", async () => {
  for (const [path] of paths.filter(([, m]) => m.includes("GET"))) {
    const head = await t.call("HEAD", path)
    const get = await t.call("GET", path)
    await get.body?.cancel()
    expect([path, head.status]).toEqual([path, get.status])
    expect([path, await head.text()]).toEqual([path, ""])
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"))
  }
})

test("a method a path does not serve is 405 with Allow naming those it does", async () => {
  for (const [path, methods] of paths) {
    if (METHODS.every((m) => methods.includes(m))) continue
    const other = METHODS.find((m) => !methods.includes(m) && !servedElsewhere(m, path))
    if (!other) continue
    const res = await t.call(other, path)
    expect([path, other, res.status]).toEqual([path, other, 405])
    expect((await res.json()).error.code).toBe("method_not_allowed")
    const allow = res.headers.get("allow")!.split(", ")
    for (const m of methods) expect([path, allow]).toEqual([path, expect.arrayContaining([m])])
    expect(allow).not.toContain(other)
  }
})

test("OPTIONS answers with Allow, and CORS headers only for an allowed origin", async () => {
  for (const [path, methods] of paths) {
    const res = await t.call("OPTIONS", path, undefined, { origin: "https://ui.example" })
    expect([path, res.status]).toEqual([path, 204])
    const allow = res.headers.get("allow")!.split(", ")
    expect(allow).toEqual(expect.arrayContaining([...methods, "OPTIONS"]))
    expect(res.headers.get("access-control-allow-origin")).toBe("https://ui.example")
  }
  const foreign = await t.call("OPTIONS", "/api/health", undefined, { origin: "https://evil.example" })
  expect(foreign.status).toBe(403)
  expect(foreign.headers.get("access-control-allow-origin")).toBeNull()
})

test("a WebSocket route's GET without an upgrade is 400 websocket_expected; a path of no route is 404 to every method", async () => {
  const plain = await t.call("GET", "/api/host/shell")
  expect(plain.status).toBe(400)
  expect((await plain.json()).error.code).toBe("websocket_expected")
  for (const method of [...METHODS, "OPTIONS"]) {
    const res = await t.call(method, "/api/no-such-route")
    expect([method, res.status, res.headers.get("allow")]).toEqual([method, 404, null])
  }
})
