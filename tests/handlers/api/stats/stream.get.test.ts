import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"
import { sseMessages } from "../../../support/sse.ts"
import { series } from "../../../lib/stats/payload.ts"

let t: TestApp
afterEach(() => t.close())

test("each round is one message; a stopped container is absent from the next", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "web", stats: series(Date.now() - 20_000, 1, 4) })
  const gone = t.engine.addContainer({ name: "gone", stats: series(Date.now() - 20_000, 0.5, 4) })
  const res = await t.call("GET", "/api/stats/stream")
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const messages = sseMessages(res)
  const first = messages.next()
  while (t.ctx.stats.subscriberCount === 0) await Bun.sleep(1)
  await t.ctx.stats.round()
  expect((await first).value.containers.map((c: any) => c.name)).toEqual(["gone", "web"])
  await t.ctx.engine.containerAction(gone.id, "stop")
  const next = messages.next()
  await t.ctx.stats.round()
  const m = (await next).value
  expect(m.containers.map((c: any) => c.name)).toEqual(["web"])
  expect(m).toMatchObject({ interval: 5, host: { cpus: 2 }, error: null })
  // A client that goes away leaves at the latest with the next round (a server aborts the request's signal at once).
  await messages.return(undefined)
  await t.ctx.stats.round()
  await Bun.sleep(10)
  expect(t.ctx.stats.subscriberCount).toBe(0)
})
