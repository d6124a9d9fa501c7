import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("lists volumes with the stack that owns them", async () => {
  t = await testApp()
  await t.engine.createVolume("shop_data", { "com.docker.compose.project": "shop" })
  await t.engine.createVolume("loose")
  const body = await (await t.call("GET", "/api/volumes")).json()
  expect(body).toEqual([
    {
      name: "shop_data",
      driver: "local",
      mountpoint: "/fake/volumes/shop_data",
      created: null,
      scope: "local",
      labels: { "com.docker.compose.project": "shop" },
      stack: "shop",
    },
    expect.objectContaining({ name: "loose", stack: null }),
  ])
})
