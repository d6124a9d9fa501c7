import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("health reports version, sha, a server_id stable across restarts, and the engine", async () => {
  t = await testApp()
  const body = await (await t.call("GET", "/api/health")).json()
  expect(body).toMatchObject({
    status: "ok",
    version: expect.any(String),
    sha: expect.any(String),
    engine: { reachable: true },
  })
  const again = await testApp({}, { SVC_DATA: t.dataDir })
  expect((await (await again.call("GET", "/api/health")).json()).server_id).toBe(body.server_id)
})

test("an unreachable engine leaves the service up and says so", async () => {
  t = await testApp()
  t.engine.down = true
  const res = await t.call("GET", "/api/health")
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({
    status: "degraded",
    engine: { reachable: false, error: expect.stringContaining("unreachable") },
  })
})

test("health says each background job's state, and why one failed", async () => {
  t = await testApp()
  t.ctx.jobs.start(
    [
      { name: "engine events", start: (_, signal) => new Promise((r) => signal.addEventListener("abort", r)) },
      { name: "scan queue", start: () => Promise.reject(new Error("no scanner")) },
    ],
    t.ctx,
  )
  await Bun.sleep(0)
  expect((await (await t.call("GET", "/api/health")).json()).jobs).toEqual([
    { name: "engine events", state: "running" },
    { name: "scan queue", state: "failed", message: "no scanner" },
  ])
  await t.ctx.jobs.stop()
})

test("unknown routes and foreign hosts get the one error shape", async () => {
  t = await testApp()
  const missing = await t.call("GET", "/api/nope")
  expect(missing.status).toBe(404)
  expect(await missing.json()).toEqual({ error: { code: "not_found", message: "no such route" } })
  const foreign = await t.call("GET", "/api/health", undefined, { host: "evil.example:8080" })
  expect(foreign.status).toBe(403)
  expect((await foreign.json()).error.code).toBe("host_not_allowed")
})

test("health says the engine's place in a swarm, from GET /info, and no join token", async () => {
  t = await testApp()
  expect((await (await t.call("GET", "/api/health")).json()).swarm).toMatchObject({ active: false, role: null })
  t.engine.swarm.seed(2)
  const text = await (await t.call("GET", "/api/health")).text()
  expect(JSON.parse(text).swarm).toMatchObject({ active: true, role: "manager", nodes: 3 })
  expect(text).not.toContain("SWMTKN")
  t.engine.down = true
  expect((await (await t.call("GET", "/api/health")).json()).swarm).toBeNull()
})
