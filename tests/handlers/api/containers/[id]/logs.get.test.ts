import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { collect } from "../../../../support/sse.ts"

let t: TestApp
afterEach(() => t.close())

const lines = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      ({ stream: i % 2 ? "stderr" : "stdout", ts: `2026-01-01T00:00:0${i}.000000000Z`, line: `line ${i}` }) as const,
  )

test("a snapshot sends SVC_LOGS_TAIL lines as log line objects and ends", async () => {
  t = await testApp({}, { SVC_LOGS_TAIL: "3" })
  t.engine.addContainer({ name: "shop_web_1", labels: { "com.docker.compose.service": "web" }, logs: [...lines(5)] })
  const res = await t.call("GET", "/api/containers/shop_web_1/logs?follow=false")
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  expect(await collect(res)).toEqual([
    { service: "web", container: "shop_web_1", stream: "stdout", ts: "2026-01-01T00:00:02.000000000Z", line: "line 2" },
    { service: "web", container: "shop_web_1", stream: "stderr", ts: "2026-01-01T00:00:03.000000000Z", line: "line 3" },
    { service: "web", container: "shop_web_1", stream: "stdout", ts: "2026-01-01T00:00:04.000000000Z", line: "line 4" },
  ])
  expect(t.engine.calls.find((c) => c.op === "logs")!.args[1]).toMatchObject({ follow: false, tail: 3 })
})

test("tail overrides the configured tail; follow is the default; a plain container is its own service", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "solo", logs: [...lines(5)] })
  const got = await collect(await t.call("GET", "/api/containers/solo/logs?tail=1"))
  expect(got).toEqual([
    { service: "solo", container: "solo", stream: "stdout", ts: "2026-01-01T00:00:04.000000000Z", line: "line 4" },
  ])
  expect(t.engine.calls.find((c) => c.op === "logs")!.args[1]).toMatchObject({ follow: true, tail: 1 })
  await collect(await t.call("GET", "/api/containers/solo/logs?tail=all&follow=false"))
  expect(t.engine.calls.filter((c) => c.op === "logs").at(-1)!.args[1]).toMatchObject({ follow: false, tail: "all" })
})

test("an unknown container is a 404 before any stream; a bad tail is a 400", async () => {
  t = await testApp()
  const res = await t.call("GET", "/api/containers/nope/logs")
  expect(res.status).toBe(404)
  expect((await res.json()).error.code).toBe("not_found")
  t.engine.addContainer({ name: "solo" })
  expect((await t.call("GET", "/api/containers/solo/logs?tail=-3")).status).toBe(400)
})
