import { afterEach, expect, test } from "bun:test"
import { join } from "node:path"
import { SERVICE_LABEL } from "#lib/engine/containers.ts"
import { testApp, type TestApp } from "../../../support/app.ts"
import { FakeCompose, twoServices } from "../../../support/compose.ts"
import { FakeEngine } from "../../../support/fake-engine.ts"

let t: TestApp
afterEach(() => t.close())

test("history answers the last 100 events, oldest first", async () => {
  t = await testApp()
  for (let i = 0; i < 105; i++) t.ctx.events.publish({ type: "stack", action: "up", name: `s${i}` })
  const history = await (await t.call("GET", "/api/events/history")).json()
  expect(history).toHaveLength(100)
  expect(history[0]).toMatchObject({ source: "service", type: "stack", action: "up", name: "s5" })
  expect(history.at(-1).name).toBe("s104")
})

test("a managed stack's container started with a bind outside the stack's paths is stopped, a mount_refused event in the history and a notification", async () => {
  const received: { event: string; stack: string; message: string }[] = []
  const hook = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => (received.push(await req.json()), new Response(null, { status: 204 })),
  })
  const engine = new FakeEngine()
  t = await testApp(
    { engine, compose: new FakeCompose(engine) },
    { SVC_NOTIFY_URLS: `http://127.0.0.1:${hook.port}/hook` },
  )
  expect((await t.call("POST", "/api/stacks", { name: "demo", content: twoServices, env: [] })).status).toBe(201)
  const running = new AbortController()
  void t.ctx.events.follow(engine, running.signal)
  void t.ctx.notifier.follow(t.ctx.events, running.signal, async () => 0)
  void t.ctx.liveMounts.run(running.signal)
  const web = [...engine.containers.values()].find((c) => c.labels[SERVICE_LABEL] === "web")!
  web.mounts = [
    { Type: "bind", Source: join(t.dataDir, "stacks/demo"), Destination: "/stack" },
    { Type: "bind", Source: "/etc", Destination: "/host-etc" },
  ]
  engine.emit("container", "start", web.id, { name: web.name, ...web.labels })
  while (!t.ctx.events.history().some((e) => e.action === "mount_refused")) await Bun.sleep(1)
  running.abort()
  const history = await (await t.call("GET", "/api/events/history")).json()
  const message =
    "service web: its bind at /host-etc reached /etc, outside what the stack may reach; container demo_web_1 was stopped"
  expect(history.filter((e: { action: string }) => e.action === "mount_refused")).toEqual([
    expect.objectContaining({ source: "service", type: "stack", name: "demo", id: web.id, level: "error", message }),
  ])
  expect(web).toMatchObject({ state: "exited", hostConfig: { RestartPolicy: { Name: "no" } } })
  expect(
    [...engine.containers.values()].filter((c) => c.state === "running").map((c) => c.labels[SERVICE_LABEL]),
  ).toEqual(["db"])
  await t.ctx.notifier.idle()
  hook.stop(true)
  expect(received).toEqual([expect.objectContaining({ event: "mount_refused", stack: "demo", message })])
})
