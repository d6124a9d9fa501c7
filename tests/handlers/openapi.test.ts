// The OpenAPI document at /openapi: Redocly's recommended rules find no error in it, every route
// declares what it answers and an operationId of its own, and a route's access (lib/service/access.ts),
// declared once in its handler file, is both its security requirement here and what the app checks.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadRoutes } from "#lib/service/handler.ts"
import { ACCESS } from "#lib/service/access.ts"
import { routeOf } from "#lib/http/manifest.ts"
import { routes } from "../../routes.gen.ts"
import { testApp, type TestApp } from "../support/app.ts"

const root = join(import.meta.dir, "../..")
const rows = await loadRoutes(routes)
let t: TestApp
let doc: any
const dir = mkdtempSync(join(tmpdir(), "hm-openapi-"))
beforeAll(async () => {
  t = await testApp()
  doc = await (await t.call("GET", "/openapi")).json()
})
afterAll(() => {
  t.close()
  rmSync(dir, { recursive: true, force: true })
})

const operations = () =>
  Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((path) => Object.values(path))

test("redocly lint with the recommended rules reports no error", async () => {
  const file = join(dir, "openapi.json")
  writeFileSync(file, JSON.stringify(doc))
  const lint = Bun.spawn([join(root, "node_modules/.bin/redocly"), "lint", file, "--format=json"], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    stdout: "pipe",
    stderr: "pipe",
  })
  const report = JSON.parse(await new Response(lint.stdout).text())
  await lint.exited
  const errors = report.problems
    .filter((p: { severity: string }) => p.severity === "error")
    .map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`)
  expect(errors).toEqual([])
  expect(report.totals.errors).toBe(0)
}, 60_000)

test("every route is in the document with a response schema and an operationId of its own", () => {
  const ids = operations().map((op) => op.operationId)
  expect(new Set(ids).size).toBe(ids.length)
  for (const row of rows.filter((r) => r.mod.detail))
    expect([row.file, Boolean(row.mod.response) || row.method === "WS"]).toEqual([row.file, true])
  expect(doc.servers[0].url).toBe("http://127.0.0.1:8080")
  expect(doc.paths["/api/stacks/{name}/files/{path}"].get.parameters.map((p: { name: string }) => p.name)).toEqual([
    "name",
    "path",
  ])
  expect(
    doc.paths["/api/stacks/{name}/logs"].get.responses[200].content["text/event-stream"].schema.required,
  ).toContain("line")
  expect(doc.paths["/api/containers/{id}/shell"].get["x-text-frame"].properties.type).toEqual({ const: "resize" })
})

test("a route's declared access is its security in the document and is checked before its handler runs", async () => {
  const t2 = await testApp({}, { SVC_METRICS: "on", SVC_METRICS_TOKEN: "metrics-t0ken" })
  try {
    for (const row of rows.filter((r) => r.mod.detail && r.method !== "WS")) {
      const { path, rest } = routeOf(row.file)
      const methods = doc.paths[path.replace(/:(\w+)/g, "{$1}").replace("*", `{${rest}}`)]
      const op = methods[row.method.toLowerCase()] ?? methods.get
      expect([row.file, op.security]).toEqual([row.file, row.mod.access ? ACCESS[row.mod.access].security : []])
      if (!row.mod.access) continue
      // No credentials and a wrong one: 401 from the access rule, whatever the route would do with its input.
      const url = path.replace(/:\w+/g, "x").replace("*", "x")
      for (const headers of [{}, { authorization: "Bearer wrong" }] as Record<string, string>[])
        expect([
          row.file,
          (await t2.call(row.method === "ALL" ? "GET" : row.method, url, undefined, headers)).status,
        ]).toEqual([row.file, 401])
    }
  } finally {
    t2.close()
  }
})

test("each operation says the role it needs, and with sign-in on its security names the session cookie and API tokens", async () => {
  const signedIn = await testApp({}, { SVC_AUTH: "local" })
  try {
    const on = await (await signedIn.call("GET", "/openapi")).json()
    expect(on.components.securitySchemes.sessionCookie).toMatchObject({
      type: "apiKey",
      in: "cookie",
      name: "hm_session",
    })
    expect(on.paths["/api/containers"].get["x-role"]).toBe("viewer")
    expect(on.paths["/api/containers"].get.security).toEqual([{ sessionCookie: [] }, { apiToken: [] }])
    expect(on.paths["/api/prune/{kind}"].post["x-role"]).toBe("admin")
    expect(on.paths["/api/health"].get.security).toEqual([])
    expect(on.paths["/api/stacks/{name}/env/export"].get.security).toEqual([
      { clusterToken: [] },
      { sessionCookie: [] },
      { apiToken: [] },
    ])
    expect(doc.paths["/api/containers"].get["x-role"]).toBe("viewer")
    expect(doc.paths["/api/containers"].get.security).toEqual([])
    expect(Object.keys(doc["x-roles"])).toEqual(["viewer", "operator", "admin"])
  } finally {
    signedIn.close()
  }
})

test("/openapi/reference is the page that renders the document: Scalar's renderer, pinned, reading /openapi", async () => {
  const res = await t.call("GET", "/openapi/reference")
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toStartWith("text/html")
  const page = await res.text()
  const config = JSON.parse(/data-configuration='([^']*)'/.exec(page)![1]!)
  expect(config.url).toBe("/openapi")
  expect(page).toContain('<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser/')
  expect(page).toContain("<title>Harbormaster API</title>")
})
