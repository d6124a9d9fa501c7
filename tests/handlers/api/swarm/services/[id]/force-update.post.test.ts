import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("every task is replaced: ForceUpdate goes up by one", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  t.engine.swarm.addService({ name: "web", replicas: 2 })
  const before = (await (await t.call("GET", "/api/swarm/services/web")).json()).tasks.map((x: any) => x.id)
  const res = await t.call("POST", "/api/swarm/services/web/force-update")
  expect(res.status).toBe(200)
  const running = (await res.json()).tasks.filter((x: any) => x.desired_state === "running").map((x: any) => x.id)
  expect(running).toHaveLength(2)
  expect(running.some((id: string) => before.includes(id))).toBe(false)
  expect((t.engine.calls.find((c) => c.op === "updateService")!.args[2] as any).TaskTemplate.ForceUpdate).toBe(1)
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "swarm")
      .map((e) => e.action),
  ).toEqual(["service.force_update"])
})
