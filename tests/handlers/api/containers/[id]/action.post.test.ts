import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("each action moves the container and answers its new state", async () => {
  t = await testApp()
  const c = t.engine.addContainer({ name: "web", state: "exited" })
  for (const [action, state] of [
    ["start", "running"],
    ["pause", "paused"],
    ["unpause", "running"],
    ["restart", "running"],
    ["stop", "exited"],
  ]) {
    const res = await t.call("POST", "/api/containers/web/action", { action })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: c.id, action, state })
  }
  expect(t.engine.calls.filter((x) => x.op === "containerAction").map((x) => x.args[1])).toEqual([
    "start",
    "pause",
    "unpause",
    "restart",
    "stop",
  ])
})

test("any other action, or none, is a 400 and reaches no engine", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "web" })
  for (const body of [{ action: "kill" }, {}, { action: 1 }]) {
    const res = await t.call("POST", "/api/containers/web/action", body)
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe("invalid_request")
  }
  expect((await t.call("POST", "/api/containers/web/action", "{not json")).status).toBe(400)
  expect(t.engine.calls.some((x) => x.op === "containerAction")).toBe(false)
})

test("a refused action is a 409, an unknown container a 404", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "web", state: "exited" })
  expect((await t.call("POST", "/api/containers/web/action", { action: "pause" })).status).toBe(409)
  expect((await t.call("POST", "/api/containers/nope/action", { action: "start" })).status).toBe(404)
})

test("an unreachable engine is a 503", async () => {
  t = await testApp()
  t.engine.down = true
  const res = await t.call("POST", "/api/containers/web/action", { action: "start" })
  expect(res.status).toBe(503)
  expect((await res.json()).error.code).toBe("engine_unavailable")
})
