import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../../support/app.ts"
import { collect } from "../../../../../support/sse.ts"

let t: TestApp
afterEach(() => t.close())

test("SSE of the service's lines with the service's name and each line's task as container", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  const s = t.engine.swarm.addService({
    name: "web",
    replicas: 2,
    logs: [
      { stream: "stdout", ts: "2026-01-01T00:00:00.000000001Z", line: "one" },
      { stream: "stderr", ts: "2026-01-01T00:00:00.000000002Z", line: "two" },
    ],
  })
  const res = await t.call("GET", "/api/swarm/services/web/logs?follow=false&tail=all")
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const lines = await collect(res)
  const tasks = [...t.engine.swarm.tasks.values()].filter((x) => x.ServiceID === s.ID).map((x) => x.ID)
  expect(lines.map((l) => [l.service, l.stream, l.line])).toEqual([
    ["web", "stdout", "one"],
    ["web", "stderr", "two"],
  ])
  expect(lines.map((l) => l.container).sort()).toEqual(tasks.sort())
  expect(t.engine.calls.find((c) => c.op === "serviceLogs")?.args[1]).toMatchObject({ follow: false, tail: "all" })
})

test("an unknown service is 404 before any stream; a bad tail is 400", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  expect((await t.call("GET", "/api/swarm/services/nosuch/logs")).status).toBe(404)
  t.engine.swarm.addService({ name: "web" })
  expect((await t.call("GET", "/api/swarm/services/web/logs?tail=-1")).status).toBe(400)
})
