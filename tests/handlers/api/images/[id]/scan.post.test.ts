import { afterEach, expect, test } from "bun:test"
import { FakeEngine } from "../../../../support/fake-engine.ts"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { standInScanner } from "../../../../support/scanners.ts"

let t: TestApp
afterEach(() => t.close())

test("POST answers 202 at once; the result then has the full CVE list, and GET /api/images carries its summary", async () => {
  const engine = new FakeEngine()
  t = await testApp({ engine, scanner: standInScanner(engine) })
  const image = engine.addImage(["web:1"])
  const res = await t.call("POST", `/api/images/web:1/scan`)
  expect(res.status).toBe(202)
  expect(await res.json()).toEqual({
    image: image.Id,
    ref: "web:1",
    state: "queued",
    result: `/api/images/${image.Id}/scan`,
  })
  await t.ctx.scans.idle()

  const result = await (await t.call("GET", `/api/images/${image.Id}/scan`)).json()
  expect(result).toMatchObject({
    image: image.Id,
    ref: "web:1",
    status: "done",
    scanner: "trivy",
    scanner_version: "dev",
    state: null,
    error: null,
  })
  expect(result.counts).toEqual({ critical: 0, high: 0, medium: 4, low: 0, negligible: 0, unknown: 0 })
  expect(result.vulnerabilities).toHaveLength(4)
  expect(result.vulnerabilities[0]).toEqual({
    id: "CVE-2019-1549",
    package: "libcrypto1.1",
    installed: "1.1.1c-r0",
    fixed: "1.1.1d-r0",
    severity: "medium",
    title: "openssl: information disclosure in fork()",
    link: "https://avd.aquasec.com/nvd/cve-2019-1549",
  })

  const listed = (await (await t.call("GET", "/api/images")).json()).find((i: { id: string }) => i.id === image.Id)
  expect(listed).toMatchObject({
    tags: ["web:1"],
    scan: {
      status: "done",
      scanner: "trivy",
      scanned_at: expect.any(String),
      counts: { medium: 4, high: 0 },
      error: null,
    },
    scan_state: null,
    update_available: null,
  })
})

test("a failing scanner leaves a failed result with the scanner's message", async () => {
  const engine = new FakeEngine()
  t = await testApp({
    engine,
    scanner: standInScanner(engine, "trivy-alpine-310.json", { STAND_IN_FAIL: "FATAL unable to initialize the image" }),
  })
  const image = engine.addImage(["web:1"])
  expect((await t.call("POST", `/api/images/${image.Id}/scan`)).status).toBe(202)
  await t.ctx.scans.idle()
  expect(await (await t.call("GET", `/api/images/${image.Id}/scan`)).json()).toMatchObject({
    status: "failed",
    error: expect.stringContaining("FATAL unable to initialize the image"),
  })
})

test("an unknown image is 404, and so is the result of an image never scanned", async () => {
  t = await testApp()
  expect((await t.call("POST", "/api/images/nope:1/scan")).status).toBe(404)
  const image = t.engine.addImage(["web:1"])
  const res = await t.call("GET", `/api/images/${image.Id}/scan`)
  expect(res.status).toBe(404)
  expect((await res.json()).error.code).toBe("not_scanned")
})

test("pull=true: an image not here is pulled first with its kept registry's credentials, then scanned; without it, 404", async () => {
  const engine = new FakeEngine()
  t = await testApp({ engine, scanner: standInScanner(engine) })
  engine.registryAuth = (ref) => t.ctx.registries.engineAuth(ref)
  await t.call("POST", "/api/registries", { name: "lan", address: "registry.lan", username: "u", password: "pw-scan" })
  const ref = encodeURIComponent("registry.lan/app:1")
  expect((await t.call("POST", `/api/images/${ref}/scan`)).status).toBe(404)
  const res = await t.call("POST", `/api/images/${ref}/scan?pull=true`)
  expect(res.status).toBe(202)
  expect(await res.json()).toMatchObject({ ref: "registry.lan/app:1", state: "queued" })
  const pulls = engine.calls.filter((c) => c.op === "pullImage")
  expect(pulls).toHaveLength(1)
  expect(pulls[0]!.args[0]).toBe("registry.lan/app:1")
  expect(pulls[0]!.args[1]).toBeString()
  // Present now: a second scan pulls nothing.
  await t.call("POST", `/api/images/${ref}/scan?pull=true`)
  expect(engine.calls.filter((c) => c.op === "pullImage")).toHaveLength(1)
  await t.ctx.scans.idle()
})
