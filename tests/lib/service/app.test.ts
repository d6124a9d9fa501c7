import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("a wrongly typed body field is named in the 400", async () => {
  t = await testApp()
  const res = await t.call("POST", "/api/containers/x/action", { action: "jump" })
  expect(res.status).toBe(400)
  expect(await res.json()).toEqual({ error: { code: "invalid_request", message: expect.stringMatching(/^body\.action: /) } })
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
