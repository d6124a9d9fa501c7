import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("the registry's nodes in Prometheus HTTP SD format, each group labelled node; a node behind NAT left out", async () => {
  t = await testApp({}, { SVC_METRICS: "on" })
  expect(await (await t.call("GET", "/metrics/targets")).json()).toEqual([])
  await t.ctx.nodes.register({ server_id: "s2", name: "web", url: "https://web.example" })
  await t.ctx.nodes.register({ server_id: "s1", name: "db", url: "http://10.0.0.5:8080" })
  await t.ctx.nodes.register({ server_id: "s3", name: "proxied", url: "https://gw.example:8443/hm/" })
  await t.ctx.nodes.register({ server_id: "s4", name: "laptop", url: "outbound://s4" }) // behind NAT: nothing to scrape
  const res = await t.call("GET", "/metrics/targets")
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toStartWith("application/json")
  const groups = await res.json()
  expect(groups).toEqual([
    { targets: ["10.0.0.5:8080"], labels: { node: "db", __scheme__: "http" } },
    { targets: ["gw.example:8443"], labels: { node: "proxied", __scheme__: "https", __metrics_path__: "/hm/metrics" } },
    { targets: ["web.example"], labels: { node: "web", __scheme__: "https" } },
  ])
  // The SD format: an array of groups, each with a list of target strings and string-valued labels.
  for (const g of groups) {
    expect(Object.keys(g).sort()).toEqual(["labels", "targets"])
    expect(g.targets.every((x: unknown) => typeof x === "string" && /^[^/]+$/.test(x as string))).toBe(true)
    expect(
      Object.entries(g.labels).every(([k, v]) => /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(k) && typeof v === "string"),
    ).toBe(true)
  }
})

test("same flag and token rule as /metrics", async () => {
  t = await testApp()
  expect((await t.call("GET", "/metrics/targets")).status).toBe(404)
  t.close()
  t = await testApp({}, { SVC_METRICS: "on", SVC_METRICS_TOKEN: "tok" })
  expect((await t.call("GET", "/metrics/targets")).status).toBe(401)
  expect((await t.call("GET", "/metrics/targets", undefined, { authorization: "Bearer tok" })).status).toBe(200)
})
