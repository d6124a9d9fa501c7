import { afterEach, expect, test } from "bun:test"
import { FakeEngine } from "../support/fake-engine.ts"
import { testApp, type TestApp } from "../support/app.ts"
import { standInScanner } from "../support/scanners.ts"
import { promtool } from "../support/promtool.ts"

let t: TestApp
afterEach(() => t.close())

const value = (text: string, series: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${series} `))
      ?.slice(series.length + 1),
  )

test("without SVC_METRICS=on the route does not exist", async () => {
  t = await testApp()
  const res = await t.call("GET", "/metrics")
  expect(res.status).toBe(404)
  expect(await res.json()).toEqual({ error: { code: "not_found", message: "no such route" } })
})

test("the exposition passes promtool and counts containers, stacks, CVEs, nodes and requests by route pattern", async () => {
  const engine = new FakeEngine()
  t = await testApp({ engine, scanner: standInScanner(engine, "trivy-debian-buster.json") }, { SVC_METRICS: "on" })
  engine.addContainer({
    name: "web_1",
    state: "running",
    labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "web" },
  })
  engine.addContainer({
    name: "db_1",
    state: "exited",
    labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "db" },
  })
  engine.addContainer({ name: "solo", state: "paused" })
  const image = engine.addImage(["debian:10"])
  await t.call("POST", `/api/images/${image.Id}/scan`)
  await t.ctx.scans.idle()
  await t.ctx.nodes.register({ server_id: "s1", name: "edge", url: "http://10.0.0.2:8080" })
  await t.call("GET", "/api/images/nope/scan")

  const res = await t.call("GET", "/metrics")
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4")
  const text = await res.text()
  const check = await promtool(text)
  expect(check.output).toBe("")
  expect(check.code).toBe(0)

  expect(value(text, 'harbormaster_containers{state="running"}')).toBe(1)
  expect(value(text, 'harbormaster_containers{state="exited"}')).toBe(1)
  expect(value(text, 'harbormaster_containers{state="paused"}')).toBe(1)
  expect(value(text, 'harbormaster_stacks{status="partly running"}')).toBe(1)
  expect(value(text, 'harbormaster_image_vulnerabilities{severity="critical"}')).toBe(1)
  expect(value(text, 'harbormaster_image_vulnerabilities{severity="low"}')).toBe(1)
  expect(value(text, "harbormaster_images_scanned")).toBe(1)
  expect(value(text, 'harbormaster_nodes{status="unknown"}')).toBe(1)
  expect(value(text, "harbormaster_scan_queue_length")).toBe(0)
  expect(value(text, "harbormaster_engine_up")).toBe(1)
  expect(value(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000)
  expect(text).toContain(
    'harbormaster_http_request_duration_seconds_count{route="/api/images/:id/scan",method="POST",status="202"} 1',
  )
  expect(text).toContain(
    'harbormaster_http_request_duration_seconds_count{route="/api/images/:id/scan",method="GET",status="404"} 1',
  )
  expect(text).not.toContain("/api/images/nope")
  expect(text).not.toMatch(/nodejs_|eventloop|gc_duration/)
})

test("an unreachable engine leaves the engine's gauges out and still answers", async () => {
  t = await testApp({}, { SVC_METRICS: "on" })
  t.engine.down = true
  const text = await (await t.call("GET", "/metrics")).text()
  expect(value(text, "harbormaster_engine_up")).toBe(0)
  expect(text).not.toContain("harbormaster_containers{")
  expect((await promtool(text)).code).toBe(0)
})

test("with SVC_METRICS_TOKEN the bearer token is required", async () => {
  t = await testApp({}, { SVC_METRICS: "on", SVC_METRICS_TOKEN: "s3cret-metrics" })
  expect((await t.call("GET", "/metrics")).status).toBe(401)
  expect((await t.call("GET", "/metrics", undefined, { authorization: "Bearer wrong" })).status).toBe(401)
  const res = await t.call("GET", "/metrics", undefined, { authorization: "Bearer s3cret-metrics" })
  expect(res.status).toBe(200)
  expect(await res.text()).not.toContain("s3cret-metrics")
})

test("on a swarm manager: each service's desired and running replicas, the nodes by state and availability; none elsewhere", async () => {
  t = await testApp({}, { SVC_METRICS: "on" })
  const before = await (await t.call("GET", "/metrics")).text()
  expect(before).not.toContain("harbormaster_swarm_service_replicas_desired{")
  expect(before).not.toContain("harbormaster_swarm_nodes{")
  t.engine.swarm.seed(2)
  t.engine.swarm.addService({ name: "shop_web", replicas: 3, labels: { "com.docker.stack.namespace": "shop" } })
  const worker = [...t.engine.swarm.nodes.values()].find((n) => n.Description.Hostname === "worker2")!
  t.engine.swarm.setNodeState(worker.ID, "down")
  const text = await (await t.call("GET", "/metrics")).text()
  expect((await promtool(text)).code).toBe(0)
  expect(value(text, 'harbormaster_swarm_service_replicas_desired{service="shop_web",stack="shop"}')).toBe(3)
  expect(value(text, 'harbormaster_swarm_service_replicas_running{service="shop_web",stack="shop"}')).toBe(3)
  expect(value(text, 'harbormaster_swarm_nodes{state="ready",availability="active"}')).toBe(2)
  expect(value(text, 'harbormaster_swarm_nodes{state="down",availability="active"}')).toBe(1)
  expect(value(text, 'harbormaster_swarm_nodes{state="ready",availability="drain"}')).toBe(0)
  expect(text).not.toContain("SWMTKN")
})
