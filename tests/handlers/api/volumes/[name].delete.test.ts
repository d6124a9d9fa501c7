import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("deletes a volume; an unknown one is a 404", async () => {
  t = await testApp()
  await t.engine.createVolume("data")
  expect(await (await t.call("DELETE", "/api/volumes/data")).json()).toEqual({ name: "data", removed: true })
  expect(t.engine.volumes.has("data")).toBe(false)
  const again = await t.call("DELETE", "/api/volumes/data")
  expect(again.status).toBe(404)
  expect((await again.json()).error.code).toBe("not_found")
})
