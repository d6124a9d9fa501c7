import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../support/app.ts"
import { sseMessages } from "../../support/sse.ts"
import { stackApp, twoServices } from "../../support/compose.ts"

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
  expect((await first).value).toMatchObject({
    seq: expect.any(Number),
    source: "engine",
    type: "container",
    action: "start",
    id: "abc123",
    name: "web",
    attributes: { image: "busybox" },
  })
  await messages.return(undefined)
  follow.abort()
})

test("events of a stack's objects hide its secrets, in the stream and the history, a secret set later too, and after the stack is removed; other projects' pass as sent", async () => {
  const s = await stackApp()
  t = s
  const secret = "pem-line-one-xyz\nend"
  await t.call("POST", "/api/stacks", {
    name: "demo",
    content: twoServices,
    env: [{ key: "TOKEN", value: secret, secret: true }],
  })
  const follow = new AbortController()
  void t.ctx.events.follow(t.engine, follow.signal)
  const res = await t.call("GET", "/api/events")
  const messages = sseMessages(res)
  const first = messages.next()
  while (t.ctx.events.subscriberCount === 0) await Bun.sleep(1)
  const labels = { "com.docker.compose.project": "demo", "com.docker.compose.service": "web", name: "demo-web-1" }
  t.engine.emit("container", `exec_create: /bin/sh -c echo '${secret}'`, "c1", { ...labels, token: secret })
  expect((await first).value).toMatchObject({
    action: "exec_create: /bin/sh -c echo '***'",
    attributes: { token: "***" },
  })
  await messages.return(undefined)
  await t.call("PUT", "/api/stacks/demo/env", [
    { key: "TOKEN", value: null },
    { key: "NEW", value: "later-secret", secret: true },
  ])
  t.engine.emit("container", "exec_create: echo later-secret", "c1", labels)
  t.engine.emit("container", "exec_create: echo later-secret pem-line-one-xyz", "c2", {
    "com.docker.compose.project": "other",
    name: "other-web-1",
  })
  // A removed stack's last events come after its records are gone.
  expect((await t.call("DELETE", "/api/stacks/demo")).status).toBe(200)
  t.engine.emit("container", "destroy", "c1", { ...labels, token: secret })
  while (t.ctx.events.history().filter((e) => e.source === "engine").length < 4) await Bun.sleep(1)
  follow.abort()
  const history = (await (await t.call("GET", "/api/events/history")).json()).filter(
    (e: { source: string }) => e.source === "engine",
  )
  expect(history.map((e: { action: string }) => e.action)).toEqual([
    "exec_create: /bin/sh -c echo '***'",
    "exec_create: echo ***",
    "exec_create: echo later-secret pem-line-one-xyz",
    "destroy",
  ])
  expect(history[3].attributes.token).toBe("***")
})
