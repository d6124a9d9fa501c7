import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("inspects one container without its environment", async () => {
  t = await testApp()
  const c = t.engine.addContainer({
    name: "db",
    env: ["PASSWORD=hunter2"],
    labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "db" },
  })
  const res = await t.call("GET", "/api/containers/db")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body).toMatchObject({ id: c.id, name: "db", state: "running", stack: "shop", service: "db", tty: false })
  expect(JSON.stringify(body)).not.toContain("hunter2")
})

test("an unknown container is a 404", async () => {
  t = await testApp()
  const res = await t.call("GET", "/api/containers/nope")
  expect(res.status).toBe(404)
  expect((await res.json()).error.code).toBe("not_found")
})
