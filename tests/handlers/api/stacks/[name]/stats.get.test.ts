import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { sseMessages } from "../../../../support/sse.ts"
import { series } from "../../../../lib/stats/payload.ts"

let t: TestApp
afterEach(() => t.close())

const label = (project: string, service: string) => ({
  "com.docker.compose.project": project,
  "com.docker.compose.service": service,
})

test("a stack's sums over its running containers, each container's sample, and with history=true the last hour", async () => {
  t = await testApp()
  const web = t.engine.addContainer({
    name: "shop-web-1",
    labels: label("shop", "web"),
    stats: series(Date.now() - 20_000, 1, 3, 5, { rx: 2500 }),
  })
  t.engine.addContainer({
    name: "shop-db-1",
    labels: label("shop", "db"),
    stats: series(Date.now() - 20_000, 0.5, 3, 5, { memUsage: 5e6 }),
  })
  t.engine.addContainer({ name: "blog-web-1", labels: label("blog", "web"), stats: series(Date.now() - 20_000, 1, 3) })
  for (let i = 0; i < 3; i++) await t.ctx.stats.round()
  const body = await (await t.call("GET", "/api/stacks/shop/stats?history=true")).json()
  expect(body.sum).toMatchObject({
    name: "shop",
    containers: 2,
    cpu_percent: 150,
    cpu_host_percent: 75,
    memory_bytes: 6e6,
    net_rx_bytes_per_s: 500,
  })
  expect(body.containers.map((c: any) => c.name)).toEqual(["shop-db-1", "shop-web-1"])
  expect(body.history.cpu_percent).toEqual([0, 150, 150])
  expect(body.container_history[web.id].cpu_percent).toEqual([null, 100, 100])
})

test("an unknown stack is a 404; a bad name a 400", async () => {
  t = await testApp()
  expect((await t.call("GET", "/api/stacks/nope/stats")).status).toBe(404)
  expect((await t.call("GET", "/api/stacks/Bad..Name/stats")).status).toBe(400)
  expect((await t.call("GET", "/api/stacks/nope/stats/stream")).status).toBe(404)
})

test("the stack's stream: one message per round with the sums", async () => {
  t = await testApp()
  const web = t.engine.addContainer({
    name: "shop-web-1",
    labels: label("shop", "web"),
    stats: series(Date.now() - 20_000, 1, 3),
  })
  const messages = sseMessages(await t.call("GET", "/api/stacks/shop/stats/stream"))
  const first = messages.next()
  while (t.ctx.stats.subscriberCount === 0) await Bun.sleep(1)
  await t.ctx.stats.round()
  expect((await first).value).toMatchObject({ name: "shop", sum: { containers: 1 } })
  const second = messages.next()
  await t.ctx.stats.round()
  expect((await second).value.sum.cpu_percent).toBe(100)
  await t.engine.containerAction(web.id, "stop")
  const third = messages.next()
  await t.ctx.stats.round()
  expect((await third).value).toMatchObject({ containers: [], sum: { containers: 0, cpu_percent: 0 } })
  await messages.return(undefined)
})
