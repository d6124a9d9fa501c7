import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../support/app.ts"
import { sseMessages } from "../../support/sse.ts"

let t: TestApp
afterEach(() => t.close())

test("streams engine events as event objects while the client stays", async () => {
  t = await testApp()
  const follow = new AbortController()
  void t.ctx.events.follow(t.engine, follow.signal)
  const res = await t.call("GET", "/api/events")
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const messages = sseMessages(res)
  const first = messages.next()
  while (t.ctx.events.subscriberCount === 0) await Bun.sleep(1)
  t.engine.emit("container", "start", "abc123", { name: "web", image: "busybox" })
  expect((await first).value).toMatchObject({ seq: expect.any(Number), source: "engine", type: "container", action: "start", id: "abc123", name: "web", attributes: { image: "busybox" } })
  await messages.return(undefined)
  follow.abort()
})
