import { afterEach, expect, test } from "bun:test"
import { HttpError } from "#lib/http/http-error.ts"
import { createApp } from "#lib/service/app.ts"
import type { RouteEntry } from "#lib/service/handler.ts"
import { authApp } from "../../support/auth.ts"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("a wrongly typed body field is named in the 400", async () => {
  t = await testApp()
  const res = await t.call("POST", "/api/containers/x/action", { action: "jump" })
  expect(res.status).toBe(400)
  expect(await res.json()).toEqual({
    error: { code: "invalid_request", message: expect.stringMatching(/^body\.action: /) },
  })
})

test("malformed JSON and a missing field are 400s of their own kind", async () => {
  t = await testApp()
  const broken = await t.call("POST", "/api/containers/x/action", "{nope")
  expect((await broken.json()).error.code).toBe("invalid_json")
  const missing = await t.call("POST", "/api/containers/x/action", {})
  expect((await missing.json()).error.message).toStartWith("body.action: ")
})

test("a body nested deeper than the limit is refused before it is parsed or validated", async () => {
  t = await testApp()
  const depth = 50_000
  for (const body of ["[".repeat(depth) + "]".repeat(depth), '{"a":'.repeat(depth) + "1" + "}".repeat(depth)]) {
    const res = await t.call("POST", "/api/stacks", body)
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe("json_too_deep")
  }
  const shallow = await t.call("POST", "/api/stacks", { name: "x", content: [[["a"]]] })
  expect((await shallow.json()).error.message).toStartWith("body.content: ")
})

test("an HttpError's answer carries its members beside the error and its headers, CORS kept", async () => {
  t = await testApp({}, { SVC_CORS_ORIGINS: "https://ui.example" })
  const refusal = new HttpError(409, "held", "held back", {
    body: { plan: { steps: 2 } },
    headers: { "retry-after": "7" },
  })
  const row: RouteEntry = {
    method: "GET",
    path: "/held",
    file: "handlers/held.get.ts",
    load: async () => ({ default: { role: "public", handler: () => Promise.reject(refusal) } }),
  }
  const res = await createApp(t.ctx, [row]).fetch(
    new Request("http://127.0.0.1:8080/held", { headers: { host: "127.0.0.1:8080", origin: "https://ui.example" } }),
  )
  expect(res.status).toBe(409)
  expect(res.headers.get("retry-after")).toBe("7")
  expect(res.headers.get("access-control-allow-origin")).toBe("https://ui.example")
  expect(await res.json()).toEqual({ plan: { steps: 2 }, error: { code: "held", message: "held back" } })
})

test("a route's handler file is loaded by its first request, once, and not at all for a caller the front door refuses", async () => {
  const a = await authApp()
  t = a
  let loads = 0
  const row: RouteEntry = {
    method: "GET",
    path: "/counted",
    file: "handlers/counted.get.ts",
    role: "operator",
    load: async () => {
      loads++
      return { default: { role: "operator", handler: () => ({ ok: true }) } }
    },
  }
  const app = createApp(a.ctx, [row])
  const get = (headers: Record<string, string> = {}) =>
    app.fetch(new Request("http://127.0.0.1:8080/counted", { headers: { host: "127.0.0.1:8080", ...headers } }))
  expect((await get()).status).toBe(401)
  expect(loads).toBe(0)
  await a.addUser("olga", "operator")
  const cookie = await a.signIn("olga")
  const answers = await Promise.all([get({ cookie }), get({ cookie })])
  expect(answers.map((r) => r.status)).toEqual([200, 200])
  expect(await answers[0]!.json()).toEqual({ ok: true })
  expect(loads).toBe(1)
})

test("a second app served on a port in use is refused, not handed part of its connections", async () => {
  t = await testApp()
  const first = createApp(t.ctx, []).listen({ hostname: "127.0.0.1", port: 0 })
  try {
    expect(() => createApp(t.ctx, []).listen({ hostname: "127.0.0.1", port: first.port! })).toThrow()
  } finally {
    void first.stop(true)
  }
})
