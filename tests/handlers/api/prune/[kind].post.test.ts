import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("prunes stopped containers and says what went", async () => {
  t = await testApp()
  const old = t.engine.addContainer({ name: "old", state: "exited" })
  t.engine.addContainer({ name: "live" })
  const res = await t.call("POST", "/api/prune/containers")
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ kind: "containers", removed: [old.id], untagged: [], space_reclaimed: 0 })
  expect([...t.engine.containers.values()].map((c) => c.name)).toEqual(["live"])
})

test("each of the four kinds reaches the engine; anything else is a 404", async () => {
  t = await testApp()
  for (const kind of ["images", "volumes", "networks"])
    expect((await (await t.call("POST", `/api/prune/${kind}`)).json()).kind).toBe(kind)
  expect(t.engine.calls.map((c) => c.args[0])).toEqual(["images", "volumes", "networks"])
  const res = await t.call("POST", "/api/prune/everything")
  expect(res.status).toBe(404)
  expect((await res.json()).error.message).toContain("containers, images, volumes, networks")
})
