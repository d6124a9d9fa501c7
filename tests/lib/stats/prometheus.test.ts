// Per-container gauges on /metrics behind SVC_METRICS_CONTAINERS=on, through the real app.
import { afterEach, expect, test } from "bun:test"
import { apiCall, tools, toolsFor } from "#lib/mcp/tools.ts"
import { testApp, type TestApp } from "../../support/app.ts"
import { series } from "./payload.ts"
import { promtool } from "../../support/promtool.ts"

let t: TestApp
afterEach(() => t.close())

const add = (t: TestApp) =>
  t.engine.addContainer({
    name: "shop-web-1",
    labels: {
      "com.docker.compose.project": "shop",
      "com.docker.compose.service": "web",
      "com.example.secret": "hunter2",
    },
    env: ["DB_PASSWORD=hunter2"],
    stats: series(Date.now() - 10_000, 0.5, 3, 5, { rx: 1000, memUsage: 7e6 }),
  })

test("SVC_METRICS_CONTAINERS=on: gauges per container labelled name, stack, service, and nothing of its environment", async () => {
  t = await testApp({}, { SVC_METRICS: "on", SVC_METRICS_CONTAINERS: "on" })
  add(t)
  await t.ctx.stats.round()
  await t.ctx.stats.round()
  const text = await (await t.call("GET", "/metrics")).text()
  const labels = '{name="shop-web-1",stack="shop",service="web"}'
  expect(text).toContain(`harbormaster_container_cpu_percent${labels} 50`)
  expect(text).toContain(`harbormaster_container_memory_bytes${labels} 7000000`)
  expect(text).toContain(`harbormaster_container_network_receive_bytes_per_second${labels} 200`)
  expect(text).toContain(`harbormaster_container_pids${labels} 1`)
  expect(text).not.toContain("hunter2")
  const check = await promtool(text)
  expect(check.output).toBe("")
  expect(check.code).toBe(0)
})

test("without SVC_METRICS_CONTAINERS the exposition has no container series", async () => {
  t = await testApp({}, { SVC_METRICS: "on" })
  add(t)
  await t.ctx.stats.round()
  const text = await (await t.call("GET", "/metrics")).text()
  expect(text).not.toContain("harbormaster_container_")
})

test("MCP: container_stats and stack_stats are read-only tools calling the stats routes", () => {
  const readOnly = toolsFor("read-only").map((x) => x.name)
  expect(readOnly).toContain("container_stats")
  expect(readOnly).toContain("stack_stats")
  const c = tools.find((x) => x.name === "container_stats")!
  expect(apiCall(c, { id: "web", history: true, points: 60 })).toEqual({
    method: "GET",
    path: "/api/containers/web/stats",
    query: { history: true, points: 60 },
  })
  expect(apiCall(tools.find((x) => x.name === "stack_stats")!, { name: "shop" })).toEqual({
    method: "GET",
    path: "/api/stacks/shop/stats",
    query: {},
  })
})
