import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("summarises the engine and lists every container, asking the engine everything at once", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "a" })
  t.engine.addContainer({ name: "b", state: "exited" })
  t.engine.addContainer({ name: "c", state: "paused", labels: { "com.docker.compose.project": "shop" } })
  t.engine.addImage(["busybox:latest"], { Size: 1500 })
  t.engine.addImage([], { Size: 500 })
  await t.engine.createVolume("data")
  t.engine.calls = []
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body).toMatchObject({
    engine: { version: "fake", api_version: "1.41", os: "linux", arch: "amd64" },
    container_states: { total: 3, running: 1, exited: 1, paused: 1, created: 0, restarting: 0, dead: 0 },
    images: { count: 2, size: 2000 },
    volumes: { count: 1 },
    networks: { count: 1 },
    disk: { images: 0, containers: 0, volumes: 0, build_cache: 0, total: 0 },
  })
  expect(body.containers.map((c: { name: string }) => c.name).sort()).toEqual(["a", "b", "c"])
  expect(body.containers.find((c: { name: string }) => c.name === "c").stack).toBe("shop")
  expect(t.engine.calls.map((c) => c.op).sort()).toEqual(["df", "listContainers", "listImages", "listNetworks", "listVolumes", "version"])
  // The engine's version and disk use are reused by the next dashboard; the lists are asked again.
  t.engine.calls = []
  await t.call("GET", "/api/dashboard")
  expect(t.engine.calls.map((c) => c.op).sort()).toEqual(["listContainers", "listImages", "listNetworks", "listVolumes"])
})

test("an unreachable engine is a 503 with the error shape", async () => {
  t = await testApp()
  t.engine.down = true
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(503)
  expect((await res.json()).error).toMatchObject({ code: "engine_unavailable", message: expect.stringContaining("unreachable") })
})
