import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("deletes an image by reference, forcefully", async () => {
  t = await testApp()
  const image = t.engine.addImage(["busybox:latest"])
  const res = await t.call("DELETE", "/api/images/busybox:latest")
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ id: "busybox:latest", untagged: [], deleted: [image.Id] })
  expect(t.engine.calls.find((c) => c.op === "removeImage")!.args).toEqual(["busybox:latest", { force: true }])
  expect(t.engine.images.size).toBe(0)
})

test("an unknown image is a 404", async () => {
  t = await testApp()
  expect((await t.call("DELETE", "/api/images/nope")).status).toBe(404)
})
