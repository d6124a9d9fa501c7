import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { sseMessages } from "../../../../support/sse.ts"
import { series } from "../../../../lib/stats/payload.ts"

let t: TestApp
afterEach(() => t.close())

test("one container's latest sample and, with history=true, its last hour; by name or id", async () => {
  t = await testApp()
  const web = t.engine.addContainer({
    name: "web",
    labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "web" },
    hostConfig: { CpuQuota: 50_000, CpuPeriod: 100_000 },
    stats: series(Date.now() - 20_000, 0.25, 3),
  })
  for (let i = 0; i < 3; i++) await t.ctx.stats.round()
  const body = await (await t.call("GET", "/api/containers/web/stats?history=true")).json()
  expect(body).toMatchObject({ id: web.id, name: "web", stack: "shop", service: "web", running: true, interval: 5 })
  expect(body.latest).toMatchObject({ cpu_percent: 25, cpu_limit_cores: 0.5, cpu_limit_percent: 50 })
  expect(body.history.cpu_percent).toEqual([null, 25, 25])
  const plain = await (await t.call("GET", `/api/containers/${web.id}/stats`)).json()
  expect(plain.history).toBeUndefined()
  expect(plain.latest.id).toBe(web.id)
})

test("a stopped container has no latest sample but keeps its history; an unknown one is a 404", async () => {
  t = await testApp()
  const web = t.engine.addContainer({ name: "web", stats: series(Date.now() - 20_000, 1, 3) })
  await t.ctx.stats.round()
  await t.ctx.stats.round()
  await t.engine.containerAction(web.id, "stop")
  await t.ctx.stats.round()
  const body = await (await t.call("GET", "/api/containers/web/stats?history=true")).json()
  expect(body).toMatchObject({ running: false, latest: null })
  expect(body.history.cpu_percent).toEqual([null, 100])
  const res = await t.call("GET", "/api/containers/nope/stats")
  expect(res.status).toBe(404)
  expect((await res.json()).error.code).toBe("not_found")
})

test("the container's stream: a sample per round, one running: false when it stops", async () => {
  t = await testApp()
  const web = t.engine.addContainer({ name: "web", stats: series(Date.now() - 20_000, 1, 4) })
  t.engine.addContainer({ name: "other", stats: series(Date.now() - 20_000, 1, 4) })
  const messages = sseMessages(await t.call("GET", "/api/containers/web/stats/stream"))
  const first = messages.next()
  while (t.ctx.stats.subscriberCount === 0) await Bun.sleep(1)
  await t.ctx.stats.round()
  expect((await first).value).toMatchObject({ id: web.id, name: "web" })
  const second = messages.next()
  await t.ctx.stats.round()
  expect((await second).value).toMatchObject({ id: web.id, cpu_percent: 100 })
  await t.engine.containerAction(web.id, "stop")
  const third = messages.next()
  await t.ctx.stats.round()
  expect((await third).value).toEqual({ id: web.id, time: expect.any(String), running: false })
  await messages.return(undefined)
  expect((await t.call("GET", "/api/containers/nope/stats/stream")).status).toBe(404)
})
