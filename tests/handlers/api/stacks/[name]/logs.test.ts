import { afterEach, expect, test } from "bun:test"
import { collect } from "../../../../support/sse.ts"
import { stackApp, twoServices } from "../../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

test("logs merge every container's lines with their service, tail per container", async () => {
  t = await stackApp()
  await t.call("POST", "/api/stacks", { name: "demo", content: twoServices })
  for (const c of t.engine.containers.values())
    c.logs!.push({
      stream: "stderr",
      ts: "2026-01-01T00:00:01.000000000Z",
      line: `${c.labels["com.docker.compose.service"]} again`,
    })
  const res = await t.call("GET", "/api/stacks/demo/logs?follow=false&tail=1")
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  const lines = await collect(res)
  expect(lines.map((l) => `${l.service}|${l.stream}|${l.line}`).sort()).toEqual([
    "db|stderr|db again",
    "web|stderr|web again",
  ])
  expect(lines.every((l) => l.container && l.ts)).toBe(true)
  expect(t.engine.calls.filter((c) => c.op === "logs").every((c) => (c.args[1] as any).tail === 1)).toBe(true)
  expect((await collect(await t.call("GET", "/api/stacks/demo/logs?follow=false"))).length).toBe(4)
  expect((await t.call("GET", "/api/stacks/demo/logs?tail=x")).status).toBe(400)
  expect((await t.call("GET", "/api/stacks/nope/logs")).status).toBe(404)
})
