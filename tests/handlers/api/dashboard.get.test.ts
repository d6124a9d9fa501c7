import { afterEach, expect, test } from "bun:test"
import { engineError, type Engine } from "#lib/engine/client.ts"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

const ops = () => t.engine.calls.map((c) => c.op).sort()

test("summarises the engine's answers: states counted, sizes and disk use summed, the version renamed; everything asked at once", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "a" })
  t.engine.addContainer({ name: "b", state: "exited" })
  t.engine.addContainer({ name: "c", state: "paused", labels: { "com.docker.compose.project": "shop" } })
  t.engine.addImage(["busybox:latest"], { Size: 1500 })
  t.engine.addImage([], { Size: 500 })
  await t.engine.createVolume("data")
  const engine: Engine = t.engine
  const [version, df] = [engine.version.bind(engine), engine.df.bind(engine)]
  engine.version = async () => ({ ...(await version()), Version: "26.1.5", ApiVersion: "1.45", Arch: "arm64", KernelVersion: "6.1.0-28" })
  // -1 is the engine's "not counted": it adds nothing
  engine.df = async () => ({ ...(await df()), LayersSize: 4000, Containers: [{ SizeRw: 10 }, { SizeRw: -1 }, {}], Volumes: [{ UsageData: { Size: 300 } }], BuildCache: [{ Size: 7 }, { Size: 3 }] })
  t.engine.calls = []
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body).toMatchObject({
    engine: { version: "26.1.5", api_version: "1.45", os: "linux", arch: "arm64", kernel: "6.1.0-28" },
    container_states: { total: 3, running: 1, exited: 1, paused: 1, created: 0, restarting: 0, dead: 0 },
    images: { count: 2, size: 2000 },
    volumes: { count: 1 },
    networks: { count: 1 },
    disk: { images: 4000, containers: 10, volumes: 300, build_cache: 10, total: 4320 },
  })
  expect(body.containers.map((c: { name: string }) => c.name).sort()).toEqual(["a", "b", "c"])
  expect(body.containers.find((c: { name: string }) => c.name === "c").stack).toBe("shop")
  expect(ops()).toEqual(["df", "info", "listContainers", "listImages", "listNetworks", "listVolumes", "version"])
  // The engine's version and disk use are reused by the next dashboard; the lists and the swarm are asked again.
  t.engine.calls = []
  t.engine.addContainer({ name: "d", state: "created" })
  expect((await (await t.call("GET", "/api/dashboard")).json()).container_states).toMatchObject({ total: 4, created: 1 })
  expect(ops()).toEqual(["info", "listContainers", "listImages", "listNetworks", "listVolumes"])
})

test("a failed disk count fails the dashboard with the engine's error and is not kept: the next dashboard counts again", async () => {
  t = await testApp()
  const df = t.engine.df.bind(t.engine)
  let busy = true
  t.engine.df = async () => {
    if (busy) throw engineError(500, "a disk usage operation is already running")
    return df()
  }
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(502)
  expect(await res.json()).toEqual({ error: { code: "engine_error", message: "a disk usage operation is already running" } })
  busy = false
  t.engine.calls = []
  expect((await t.call("GET", "/api/dashboard")).status).toBe(200)
  expect(ops()).toContain("df")
})

test("an unreachable engine is a 503 with the error shape", async () => {
  t = await testApp()
  t.engine.down = true
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(503)
  expect((await res.json()).error).toMatchObject({ code: "engine_unavailable", message: expect.stringContaining("unreachable") })
})

test("the dashboard says the engine's place in a swarm", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  expect((await (await t.call("GET", "/api/dashboard")).json()).swarm).toMatchObject({ active: true, role: "manager", nodes: 2 })
})
