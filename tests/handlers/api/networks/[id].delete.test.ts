import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("deletes a network by id; an unknown one is a 404", async () => {
  t = await testApp()
  t.engine.networks.set("shop_default", {
    Id: "n1",
    Name: "shop_default",
    Driver: "bridge",
    Scope: "local",
    Created: "",
    Labels: {},
  })
  expect(await (await t.call("DELETE", "/api/networks/n1")).json()).toEqual({ id: "n1", removed: true })
  expect(t.engine.networks.has("shop_default")).toBe(false)
  expect((await t.call("DELETE", "/api/networks/n1")).status).toBe(404)
})
