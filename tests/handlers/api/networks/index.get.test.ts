import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("lists networks", async () => {
  t = await testApp()
  t.engine.networks.set("shop_default", {
    Id: "n1",
    Name: "shop_default",
    Driver: "bridge",
    Scope: "local",
    Created: "2026-01-01T00:00:00Z",
    Labels: { "com.docker.compose.project": "shop" },
  })
  const body = await (await t.call("GET", "/api/networks")).json()
  expect(body).toContainEqual({
    id: "n1",
    name: "shop_default",
    driver: "bridge",
    scope: "local",
    created: "2026-01-01T00:00:00Z",
    internal: false,
    labels: { "com.docker.compose.project": "shop" },
    stack: "shop",
  })
  expect(body.map((n: { name: string }) => n.name)).toContain("bridge")
})
