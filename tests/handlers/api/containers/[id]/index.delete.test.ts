import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("deletes a stopped container; a running one needs force", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "old", state: "exited" })
  t.engine.addContainer({ name: "live" })
  expect(await (await t.call("DELETE", "/api/containers/old")).json()).toEqual({ id: "old", removed: true })
  const refused = await t.call("DELETE", "/api/containers/live")
  expect(refused.status).toBe(409)
  expect((await t.call("DELETE", "/api/containers/live?force=true")).status).toBe(200)
  expect(t.engine.containers.size).toBe(0)
  expect(t.engine.calls.filter((c) => c.op === "removeContainer").at(-1)!.args).toEqual([
    "live",
    { force: true, volumes: false },
  ])
})

test("deleting an unknown container is a 404", async () => {
  t = await testApp()
  expect((await t.call("DELETE", "/api/containers/nope")).status).toBe(404)
})
